// Where a new subscription is confirmed with history in mind. A fresh subscription of an app with history on is
// confirmed with the channel's position (so a client that saw no event yet still knows where it stands); one that
// came back with a position is confirmed, then sent the events it missed, in order, or `herald:recovery_failed`.
// With the history in memory this all happens in one turn, right after the socket joined the channel's topic, so a
// live event lands either in the replay (already in history) or after it (published later): no gap, no duplicate.

import {
  describeChannel,
  encodeRecoveryFailed,
  encodeSubscriptionSucceeded,
  type HistoryPosition,
  type PresenceSnapshot,
} from '@herald/protocol-core';
import { isPending } from '../cluster/pending.js';
import type { HistoryRead } from '../history/types.js';
import { replayCache } from './cache-channels.js';
import { clusterFailed, guard } from './guard.js';
import { send } from './send.js';
import type { AppState, ServerContext, Socket } from './state.js';

/**
 * Sends `pusher_internal:subscription_succeeded` for a new subscription, then any replay it asked for, then a cache
 * channel's last event (or `pusher:cache_miss`) unless the replay already brought the client up to date.
 */
export function confirmSubscription(
  ctx: ServerContext,
  ws: Socket,
  app: AppState,
  channel: string,
  presence: PresenceSnapshot | undefined,
  after: HistoryPosition | undefined,
): void {
  const limits = app.config.history;
  const cache = describeChannel(channel).cache;
  if (limits === undefined) {
    send(ws, app, encodeSubscriptionSucceeded(channel, presence));
    if (after !== undefined) {
      app.metrics.recoveryFailures.disabled.inc();
      send(ws, app, encodeRecoveryFailed(channel, { reason: 'disabled', firstSerial: null }));
    }
    if (cache) replayCache(ctx, ws, app, channel);
    return;
  }
  if (after === undefined) {
    const position = ctx.history.position(app.config.id, channel, limits);
    const confirm = (at: HistoryPosition) => {
      send(ws, app, encodeSubscriptionSucceeded(channel, presence, at));
      if (cache) replayCache(ctx, ws, app, channel);
    };
    if (isPending(position)) {
      position.then(
        guard(ctx.logger, 'history position', confirm),
        clusterFailed(ctx.logger, 'history position'),
      );
    } else confirm(position);
    return;
  }
  send(ws, app, encodeSubscriptionSucceeded(channel, presence));
  const read = ctx.history.read(app.config.id, channel, after, limits);
  if (isPending(read)) {
    read.then(
      guard(ctx.logger, 'history read', (answer: HistoryRead) => sendReplay(ctx, ws, app, channel, answer)),
      clusterFailed(ctx.logger, 'history read'),
    );
  } else sendReplay(ctx, ws, app, channel, read);
}

function sendReplay(ctx: ServerContext, ws: Socket, app: AppState, channel: string, read: HistoryRead): void {
  if (read.ok) {
    app.metrics.replays.inc();
    app.metrics.replayedEvents.inc(read.frames.length);
    // The replay ends with the channel's latest event: the cache's copy of it would be a duplicate.
    for (const frame of read.frames) send(ws, app, frame);
    return;
  }
  app.metrics.recoveryFailures[read.failure.reason].inc();
  send(ws, app, encodeRecoveryFailed(channel, read.failure, read.position));
  if (describeChannel(channel).cache) replayCache(ctx, ws, app, channel);
}
