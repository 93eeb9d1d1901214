// Sockets handed back to the clients: closed with 4200 so they reconnect at once (to this node after a restart,
// to the other nodes when it goes away).

import { ErrorCode } from '@herald/protocol-core';
import { closeWith } from './send.js';
import type { AppState, ServerContext, Socket } from './state.js';

/** Closes every socket with 4200. */
export function dropConnections(ctx: ServerContext, message: string): void {
  for (const app of ctx.apps.byId.values()) {
    for (const ws of [...app.sockets]) closeWith(ws, app, ErrorCode.Reconnect, message);
  }
}

/**
 * Turns new sockets away and closes the open ones with 4200 in batches spread over `graceMs`; resolves once every
 * socket is closed.
 */
export async function drain(ctx: ServerContext, graceMs: number): Promise<void> {
  ctx.draining = true;
  const open: Array<[Socket, AppState]> = [];
  for (const app of ctx.apps.byId.values()) for (const ws of app.sockets) open.push([ws, app]);
  // Batches every 100 ms across the grace period: a node with 50 000 sockets hands its clients to the other
  // nodes at a steady rate instead of all at once.
  const steps = Math.max(1, Math.floor(graceMs / 100));
  const perStep = Math.max(1, Math.ceil(open.length / steps));
  ctx.logger.info('draining', { scope: 'socket.server', sockets: open.length, graceMs });
  for (let index = 0; index < open.length; index += perStep) {
    for (const [ws, app] of open.slice(index, index + perStep)) {
      closeWith(ws, app, ErrorCode.Reconnect, 'Server is shutting down');
    }
    if (index + perStep < open.length) await new Promise((resolve) => setTimeout(resolve, graceMs / steps));
  }
}
