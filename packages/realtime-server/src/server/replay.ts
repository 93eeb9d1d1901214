// Where a new subscription is confirmed with history in mind. A fresh subscription of an app with history on is
// confirmed with the channel's position (so a client that saw no event yet still knows where it stands); one that
// came back with a position is confirmed, then sent the events it missed, in order, or `herald:recovery_failed`.
// The socket of an app with history on joins the channel's topic only after that (`live-hold.ts`): live frames that
// reach this node meanwhile are held, and only those past the replay follow it, so replay and live neither overlap
// nor leave a gap, whether the history answers at once (memory) or later (Redis), and whether the confirmation
// waited for the cluster (interest routing, a presence roster) or not.

import {
  describeChannel,
  encodeRecoveryFailed,
  encodeSubscriptionSucceeded,
  type HistoryPosition,
  type PresenceSnapshot,
} from '@herald/protocol-core';
import { isPending } from '../cluster/pending.js';
import type { HistoryLimits, HistoryRead } from '../history/types.js';
import { replayCache } from './cache-channels.js';
import { clusterFailed, guard } from './guard.js';
import { releaseHold, serialOf } from './live-hold.js';
import { send } from './send.js';
import type { AppState, LiveHold, ServerContext, Socket } from './state.js';

/** What a confirmation carries: the presence members, the position the client came back with, its hold. */
export interface Confirmation {
  readonly presence?: PresenceSnapshot | undefined;
  readonly after?: HistoryPosition | undefined;
  readonly hold?: LiveHold | undefined;
}

/**
 * Sends `pusher_internal:subscription_succeeded` for a new subscription, then any replay it asked for, then a cache
 * channel's last event (or `pusher:cache_miss`) unless the replay already brought the client up to date; then lets
 * the socket go live.
 */
export function confirmSubscription(
  ctx: ServerContext,
  ws: Socket,
  app: AppState,
  channel: string,
  { presence, after, hold }: Confirmation,
): void {
  const limits = app.config.history;
  if (limits === undefined) {
    send(ws, app, encodeSubscriptionSucceeded(channel, presence));
    if (after !== undefined) {
      app.metrics.recoveryFailures.disabled.inc();
      send(ws, app, encodeRecoveryFailed(channel, { reason: 'disabled', firstSerial: null }));
    }
    if (describeChannel(channel).cache) replayCache(ctx, ws, app, channel);
    // History turned off while this subscription waited: nothing held has a serial to compare.
    if (hold) releaseHold(app, hold, -1, true);
    return;
  }
  if (after === undefined) confirmFresh(ctx, ws, app, { channel, presence, hold, limits });
  else confirmReturning(ctx, ws, app, { channel, presence, hold, limits, after });
}

interface Pending {
  readonly channel: string;
  readonly presence: PresenceSnapshot | undefined;
  readonly hold: LiveHold | undefined;
  readonly limits: HistoryLimits;
}

/** A fresh subscription: confirmed with the channel's position; live from there. */
function confirmFresh(ctx: ServerContext, ws: Socket, app: AppState, pending: Pending): void {
  const { channel, presence, hold } = pending;
  const cache = describeChannel(channel).cache;
  const position = ctx.history.position(app.config.id, channel, pending.limits);
  const confirm = (at: HistoryPosition | undefined, settled: boolean) => {
    if (hold && !hold.active) return;
    send(ws, app, encodeSubscriptionSucceeded(channel, presence, at));
    if (cache) replayCache(ctx, ws, app, channel);
    if (hold) releaseHold(app, hold, at === undefined ? -1 : at.serial, settled);
  };
  if (!isPending(position)) {
    confirm(position, true);
    return;
  }
  position.then(
    guard(ctx.logger, 'history position', (at: HistoryPosition) => confirm(at, false)),
    (error: unknown) => {
      // The history is away: the subscription still goes live, without a position to hand the client.
      clusterFailed(ctx.logger, 'history position')(error);
      guard(ctx.logger, 'history position', confirm)(undefined, true);
    },
  );
}

/** A subscription that came back with a position: confirmed, replayed from there (or told why not), then live. */
function confirmReturning(
  ctx: ServerContext,
  ws: Socket,
  app: AppState,
  pending: Pending & { readonly after: HistoryPosition },
): void {
  const { channel, presence, hold, after } = pending;
  if (hold && !hold.active) return;
  send(ws, app, encodeSubscriptionSucceeded(channel, presence));
  const read = ctx.history.read(app.config.id, channel, after, pending.limits);
  const replay = (answer: HistoryRead, settled: boolean) => {
    if (hold && !hold.active) return;
    const floor = sendReplay(ctx, ws, app, channel, answer, after);
    if (hold) releaseHold(app, hold, floor, settled);
  };
  if (!isPending(read)) {
    replay(read, true);
    return;
  }
  read.then(
    guard(ctx.logger, 'history read', (answer: HistoryRead) => replay(answer, false)),
    (error: unknown) => {
      // The history is away: it cannot vouch for the position, which the client hears as from a lost history.
      clusterFailed(ctx.logger, 'history read')(error);
      guard(ctx.logger, 'history read', () => {
        if (hold && !hold.active) return;
        send(ws, app, encodeRecoveryFailed(channel, { reason: 'restarted', firstSerial: null }));
        if (hold) releaseHold(app, hold, -1, true);
      })();
    },
  );
}

/** Sends the replay (or the failure and the cache); answers the last serial the client has now. */
function sendReplay(
  ctx: ServerContext,
  ws: Socket,
  app: AppState,
  channel: string,
  read: HistoryRead,
  after: HistoryPosition,
): number {
  if (read.ok) {
    app.metrics.replays.inc();
    app.metrics.replayedEvents.inc(read.frames.length);
    // The replay ends with the channel's latest event: the cache's copy of it would be a duplicate.
    for (const frame of read.frames) send(ws, app, frame);
    const last = read.frames[read.frames.length - 1];
    return last === undefined ? after.serial : (serialOf(last) ?? after.serial);
  }
  app.metrics.recoveryFailures[read.failure.reason].inc();
  send(ws, app, encodeRecoveryFailed(channel, read.failure, read.position));
  if (describeChannel(channel).cache) replayCache(ctx, ws, app, channel);
  return read.position.serial;
}
