// Watchlists: a signed-in socket learns when the users it watches go online or offline. A user is online while any
// of their sockets is signed in on any node. The cluster adapter decides, once, and tells every node
// (`userChanged`); a server alone is told at once.

import { encodeWatchlistEvents } from '@herald/protocol-core';
import { isPending } from '../cluster/pending.js';
import { clusterFailed, guard } from './guard.js';
import { send } from './send.js';
import type { AppState, ServerContext, Socket } from './state.js';

/**
 * A user's first socket signed in (online) or their last signed out (offline) on this node. With interest routing
 * the adapter may answer a promise while this node starts receiving the user's traffic (see `signin`).
 */
export function userSignedIn(
  ctx: ServerContext,
  app: AppState,
  userId: string,
  online: boolean,
): void | Promise<void> {
  return ctx.cluster.setLocalUser(app.config.id, userId, online);
}

/**
 * Tells this node's sockets watching a user that the user went online or offline, each socket once per change: in a
 * cluster the change can reach this node after a watching socket already learned it from the cluster's answer to
 * its watchlist (the user signed in on another node just before).
 */
export function tellWatchers(app: AppState, userId: string, online: boolean): void {
  const watching = app.watchers.get(userId);
  if (!watching) return;
  let frame: string | undefined;
  for (const ws of watching) {
    const known = ws.getUserData().watching?.online;
    // Unknown counts as offline: a socket is never told a user went offline before it was told they were online.
    const was = known?.get(userId) ?? false;
    known?.set(userId, online);
    if (was === online) continue;
    frame ??= encodeWatchlistEvents([{ name: online ? 'online' : 'offline', user_ids: [userId] }]);
    send(ws, app, frame);
  }
}

/** Registers a signed-in socket's watchlist and tells it which watched users are online now. */
export function watch(ctx: ServerContext, ws: Socket, app: AppState, watchlist: readonly string[]): void {
  const data = ws.getUserData();
  const known = new Map<string, boolean>();
  const watching = { users: watchlist, online: known };
  data.watching = watching;
  for (const userId of watchlist) {
    const watchers = app.watchers.get(userId) ?? new Set<Socket>();
    watchers.add(ws);
    app.watchers.set(userId, watchers);
  }
  const tell = (answer: readonly string[]) => {
    if (!data.open || data.watching !== watching) return;
    // A user whose change reached this socket while the cluster answered is already told, and more recently.
    const online = answer.filter((userId) => !known.has(userId));
    for (const userId of online) known.set(userId, true);
    if (online.length > 0) send(ws, app, encodeWatchlistEvents([{ name: 'online', user_ids: online }]));
  };
  const online = ctx.cluster.onlineUsers(app.config.id, watchlist);
  if (!isPending(online)) {
    tell(online);
    return;
  }
  online.then(guard(ctx.logger, 'watchlist', tell), (error: unknown) => {
    clusterFailed(ctx.logger, 'watchlist')(error);
    tell(watchlist.filter((userId) => app.users.has(userId)));
  });
}

/** Forgets a socket's watchlist. */
export function unwatch(ws: Socket, app: AppState): void {
  const data = ws.getUserData();
  if (!data.watching) return;
  for (const userId of data.watching.users) {
    const watchers = app.watchers.get(userId);
    if (!watchers) continue;
    watchers.delete(ws);
    if (watchers.size === 0) app.watchers.delete(userId);
  }
  data.watching = undefined;
}
