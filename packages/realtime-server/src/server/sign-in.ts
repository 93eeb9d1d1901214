// `pusher:signin`: a socket authenticates as a user (for server-to-user channels, terminate and watchlists).

import {
  type ClientFrame,
  ErrorCode,
  encodeSigninSuccess,
  parseUserData,
  verifyUserAuth,
} from '@herald/protocol-core';
import { stopAuthDeadline } from './authorization.js';
import { clusterFailed, guard } from './guard.js';
import { closeWith, send, sendError } from './send.js';
import type { AppState, ServerContext, Socket } from './state.js';
import { unwatch, userSignedIn, watch } from './watchlists.js';

/** Signs a socket in as the user its signed `user_data` names, or refuses (4009 closes, a bad watchlist does not). */
export function signin(
  ctx: ServerContext,
  ws: Socket,
  app: AppState,
  frame: Extract<ClientFrame, { type: 'signin' }>,
): void {
  const data = ws.getUserData();
  if (!verifyUserAuth(app.config, frame.auth, data.socketId, frame.userData)) {
    closeWith(ws, app, ErrorCode.Unauthorized, 'Invalid signature for pusher:signin');
    return;
  }
  const user = parseUserData(frame.userData);
  if (!user.ok) {
    // A watchlist over the limit (or malformed) refuses the sign-in but keeps the socket, as other errors do.
    if (user.error.reason === 'bad_watchlist') sendError(ws, app, ErrorCode.GenericError, user.error.message);
    else closeWith(ws, app, ErrorCode.Unauthorized, user.error.message);
    return;
  }
  if (data.userId !== undefined) forgetUser(ctx, ws, app, data.userId);
  const userId = user.value.id;
  data.userId = userId;
  stopAuthDeadline(app, ws);
  const sockets = app.users.get(userId) ?? new Set();
  sockets.add(ws);
  app.users.set(userId, sockets);
  const routed = sockets.size === 1 ? firstSocketOf(ctx, app, userId) : app.userRoutes.get(userId);
  const { watchlist } = user.value;
  if (!routed) {
    confirmSignin(ctx, ws, app, frame.userData, watchlist);
    return;
  }
  // Interest routing: confirm once this node receives the user's traffic, so a terminate sent after
  // `pusher:signin_success` reaches this socket.
  routed.then(
    guard(ctx.logger, 'user routing', () => {
      if (!data.open || data.userId !== userId) return;
      confirmSignin(ctx, ws, app, frame.userData, watchlist);
    }),
    clusterFailed(ctx.logger, 'user routing'),
  );
}

/** The user's first socket here: the adapter starts routing their traffic here, perhaps with a promise. */
function firstSocketOf(ctx: ServerContext, app: AppState, userId: string): Promise<void> | undefined {
  const routed = userSignedIn(ctx, app, userId, true);
  if (!routed) return undefined;
  app.userRoutes.set(userId, routed);
  const settled = () => {
    if (app.userRoutes.get(userId) === routed) app.userRoutes.delete(userId);
  };
  routed.then(settled, settled);
  return routed;
}

function confirmSignin(
  ctx: ServerContext,
  ws: Socket,
  app: AppState,
  userData: string,
  watchlist: readonly string[],
): void {
  send(ws, app, encodeSigninSuccess(userData));
  if (watchlist.length > 0) watch(ctx, ws, app, watchlist);
}

/** Signs a socket out (it signs in again, or closes); the user goes offline with their last socket. */
export function forgetUser(ctx: ServerContext, ws: Socket, app: AppState, userId: string): void {
  unwatch(ws, app);
  const sockets = app.users.get(userId);
  if (!sockets) return;
  sockets.delete(ws);
  if (sockets.size > 0) return;
  app.users.delete(userId);
  void userSignedIn(ctx, app, userId, false); // Signing out waits for nothing.
}
