import { describeChannel } from '@herald/protocol-core';
import { takeConfirmation } from './confirmations.js';
import { dropHold } from './live-hold.js';
import { leavePresence } from './presence-leave.js';
import { topicOf } from './send.js';
import { hasChannel, withoutChannel } from './socket-channels.js';
import type { AppState, ServerContext, Socket } from './state.js';
import { countChanged } from './subscription-counts.js';

/**
 * Why a socket leaves a channel: it unsubscribed, it is closing (the transport drops its topics itself), or the
 * cluster refused its presence join (nothing is announced, the cluster's roster is not touched).
 */
export type LeaveReason = 'unsubscribe' | 'close' | 'refused';

/** Removes a socket from a channel, and the channel from this node once its last subscriber left. */
export function leave(
  ctx: ServerContext,
  ws: Socket,
  app: AppState,
  channel: string,
  reason: LeaveReason,
): void {
  const data = ws.getUserData();
  if (!hasChannel(data.channels, channel)) return;
  data.channels = withoutChannel(data.channels, channel);
  // A confirmation still on its way is no longer wanted (a resubscribe waits for its own).
  takeConfirmation(ctx, data, channel);
  if (app.holds !== undefined) dropHold(app, ws, channel);
  if (reason !== 'close') ws.unsubscribe(topicOf(app, channel));
  app.metrics.subscriptions.dec();
  if (ctx.debug.active) {
    ctx.debug.emit(app.config.id, { kind: 'unsubscribed', socketId: data.socketId, channel });
  }
  const state = app.channels.get(channel);
  if (!state) return;
  state.subscribers -= 1;
  if (state.roster) leavePresence(ctx, data, app, channel, state.roster, reason === 'refused');
  if (state.subscribers <= 0) {
    app.channels.delete(channel);
    ctx.events.emit('channelRemoved', { appId: app.config.id, channel }, ctx.reportListenerError);
  }
  // After the member's removal, so a vacated channel the adapter decides at once is told last, as Pusher does.
  // Nothing waits for the routing on a leave (and its promise never rejects).
  void ctx.cluster.setLocalSubscriptions(app.config.id, channel, Math.max(0, state.subscribers));
  if (app.config.subscriptionCount) countChanged(ctx, app, channel, describeChannel(channel));
}
