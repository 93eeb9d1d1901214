import { ErrorCode } from '@herald/protocol-core';
import { closeWith } from './send.js';
import type { ServerContext, Socket } from './state.js';

/** Closes the user's sockets on every node (see {@link terminateLocal}); returns the number closed on this one. */
export function terminateUser(ctx: ServerContext, appId: string, userId: string): number {
  ctx.cluster.broadcast({ type: 'terminate', appId, userId });
  return terminateLocal(ctx, appId, userId);
}

/**
 * Closes with 4009 every socket of this node signed in as the user or present as them in a presence channel;
 * returns the number closed. The cluster runs it on every other node.
 */
export function terminateLocal(ctx: ServerContext, appId: string, userId: string): number {
  const app = ctx.apps.byId.get(appId);
  if (!app) return 0;
  const targets = new Set<Socket>(app.users.get(userId));
  for (const ws of app.sockets) {
    const presence = ws.getUserData().presence;
    if (presence && [...presence.values()].includes(userId)) targets.add(ws);
  }
  for (const ws of targets)
    closeWith(ws, app, ErrorCode.Unauthorized, 'Connection terminated by the application');
  return targets.size;
}
