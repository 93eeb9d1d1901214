// Authorised connections (Pusher's feature, per app): a socket must sign in (`pusher:signin`) or subscribe to a
// private or presence channel within the app's timeout, counted from `pusher:connection_established`, or it is
// closed with 4009. One timer per socket of such apps only, held in the app's `authDeadlines` until the socket
// authorises itself or closes (not in the socket's state, which every socket of every app carries); Node keeps timers
// of one duration in one list, so starting and clearing them is constant time.

import { ErrorCode } from '@herald/protocol-core';
import { closeWith } from './send.js';
import type { AppState, ServerContext, Socket } from './state.js';

/** Starts the socket's deadline (its app has authorised connections on). */
export function startAuthDeadline(ctx: ServerContext, ws: Socket, app: AppState): void {
  const withinMs = app.config.authorizeWithinMs;
  if (withinMs === undefined) return;
  const data = ws.getUserData();
  const timer = setTimeout(() => {
    app.authDeadlines.delete(ws);
    if (!data.open) return;
    ctx.metrics.unauthorizedClosed.inc();
    closeWith(
      ws,
      app,
      ErrorCode.Unauthorized,
      `Connection not authorised within ${withinMs / 1000} s: sign in or subscribe to a private channel`,
    );
  }, withinMs);
  timer.unref();
  app.authDeadlines.set(ws, timer);
}

/**
 * Stops the socket's deadline, if it has one: it signed in or was let into a private or presence channel (it may
 * stay), or it closed.
 */
export function stopAuthDeadline(app: AppState, ws: Socket): void {
  if (app.authDeadlines.size === 0) return;
  const timer = app.authDeadlines.get(ws);
  if (timer === undefined) return;
  clearTimeout(timer);
  app.authDeadlines.delete(ws);
}
