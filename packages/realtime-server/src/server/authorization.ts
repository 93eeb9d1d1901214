// Authorised connections (Pusher's feature, per app): a socket must sign in (`pusher:signin`) or subscribe to a
// private or presence channel within the app's timeout, counted from `pusher:connection_established`, or it is
// closed with 4009. One timer per socket of such apps only; Node keeps timers of one duration in one list, so
// starting and clearing them is constant time.

import { ErrorCode } from '@herald/protocol-core';
import { closeWith } from './send.js';
import type { AppState, ServerContext, Socket, SocketData } from './state.js';

/** Starts the socket's deadline (its app has authorised connections on). */
export function startAuthDeadline(ctx: ServerContext, ws: Socket, app: AppState): void {
  const withinMs = app.config.authorizeWithinMs;
  if (withinMs === undefined) return;
  const data = ws.getUserData();
  const timer = setTimeout(() => {
    data.authDeadline = undefined;
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
  data.authDeadline = timer;
}

/** The socket signed in or was let into a private or presence channel: it may stay. */
export function authorised(data: SocketData): void {
  if (data.authDeadline === undefined) return;
  clearTimeout(data.authDeadline);
  data.authDeadline = undefined;
}
