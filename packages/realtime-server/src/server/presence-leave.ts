// Where a presence leave is decided: alone, by this node's roster; in a cluster, by the adapter's roster, which
// says whether the user's last socket anywhere left.

import { type ClusterAdapter, encodeMemberRemoved, type PresenceRoster } from '@herald/protocol-core';
import { deliverLocal } from './fan-out.js';
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
  const cluster = ctx.cluster;
  data.presence?.delete(channel);
  const change = roster.leave(data.socketId);
  if (cluster && !refused) {
    cluster.leavePresence(app.config.id, channel, data.socketId).then(
      guard(ctx.logger, 'presence leave', (result: Awaited<ReturnType<ClusterAdapter['leavePresence']>>) => {
        if (result.removed && result.userId !== undefined) announceRemoval(ctx, app, channel, result.userId);
      }),
      clusterFailed(ctx.logger, 'presence leave'),
    );
  } else if (!cluster && change.type === 'member_removed') {
    announceRemoval(ctx, app, channel, change.userId);
  }
}

/** Sends member_removed to every subscriber in the cluster. */
function announceRemoval(ctx: ServerContext, app: AppState, channel: string, userId: string): void {
  ctx.events.emit('memberRemoved', { appId: app.config.id, channel, userId }, ctx.reportListenerError);
  const frame = encodeMemberRemoved(channel, userId);
  deliverLocal(ctx, app, channel, frame);
  ctx.cluster?.broadcast({ type: 'deliver', delivery: { appId: app.config.id, channel, frame } });
}
