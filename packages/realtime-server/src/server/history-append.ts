// Where an event of an app with history on gets its serial: the history assigns it and keeps the frame, encoded once
// with it; then the caller fans the frame out. A store that answers at once (memory) keeps the whole publish
// synchronous, so nothing can come between the serial and the fan-out on this node. A shared store (Redis) answers
// in the order it was asked (one connection to the channel's Redis, commands and replies in order), so one node fans
// a channel's events out in serial order.

import { type ChannelEvent, encodeChannelEvent } from '@herald/protocol-core';
import { isPending } from '../cluster/pending.js';
import type { HistoryLimits } from '../history/types.js';
import { clusterFailed, guard } from './guard.js';
import type { AppState, ServerContext } from './state.js';

/** Appends an event to its channel's history and hands the frame (with its serial) to `deliver`. */
export function appendToHistory(
  ctx: ServerContext,
  app: AppState,
  message: ChannelEvent,
  deliver: (frame: string) => void,
): void {
  const limits: HistoryLimits | undefined = app.config.history;
  if (limits === undefined) {
    deliver(encodeChannelEvent(message));
    return;
  }
  const frame = ctx.history.append(
    app.config.id,
    message.channel,
    (position) => encodeChannelEvent(message, position),
    limits,
  );
  if (isPending(frame)) {
    frame.then(guard(ctx.logger, 'history append', deliver), (error: unknown) => {
      // The history is away: the event still goes out live, without a serial (no replay will hold it).
      clusterFailed(ctx.logger, 'history append')(error);
      guard(ctx.logger, 'history append', deliver)(encodeChannelEvent(message));
    });
  } else deliver(frame);
}
