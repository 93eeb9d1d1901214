// Where a presence leave is decided: by the cluster adapter's roster (cluster-wide, or this node's when it serves
// alone), which says whether the user's last socket anywhere left; the removal goes out through the fan-out.

import { type ClusterPresenceLeave, encodeMemberRemoved, type PresenceRoster } from '@herald/protocol-core';
import { isPending } from '../cluster/pending.js';
import { fanOut } from './fan-out.js';
import { clusterFailed, guard } from './guard.js';
import type { AppState, ServerContext, SocketData } from './state.js';

/**
 * Takes a socket out of a presence channel's roster and announces the member's removal once their last socket
 * left. `refused` undoes a join the cluster refused: nothing is announced and the cluster's roster is not touched.
 */
export function leavePresence(
  ctx: ServerContext,
  data: SocketData,
  app: AppState,
  channel: string,
  roster: PresenceRoster,
  refused: boolean,
): void {
  data.presence?.delete(channel);
  roster.leave(data.socketId);
  if (refused) return;
  const left = ctx.cluster.leavePresence(app.config.id, channel, data.socketId);
  if (!isPending(left)) {
    announceRemoval(ctx, app, channel, left);
    return;
  }
  left.then(
    guard(ctx.logger, 'presence leave', (result: ClusterPresenceLeave) =>
      announceRemoval(ctx, app, channel, result),
    ),
    clusterFailed(ctx.logger, 'presence leave'),
  );
}

/** Sends member_removed to every subscriber in the cluster when the user's last socket left. */
function announceRemoval(
  ctx: ServerContext,
  app: AppState,
  channel: string,
  left: ClusterPresenceLeave,
): void {
  if (!left.removed || left.userId === undefined) return;
  const userId = left.userId;
  ctx.events.emit('memberRemoved', { appId: app.config.id, channel, userId }, ctx.reportListenerError);
  fanOut(ctx, app, channel, encodeMemberRemoved(channel, userId));
}
