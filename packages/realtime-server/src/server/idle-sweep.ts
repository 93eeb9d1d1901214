// Silent sockets: each app's sockets quiet for its activity timeout get a `pusher:ping`; those that stay silent
// for its ping interval after it are closed with 4201.

import { ErrorCode, encodePing } from '@herald/protocol-core';
import { guard } from './guard.js';
import { closeWith, send } from './send.js';
import type { ServerContext, Socket } from './state.js';

/** The sweep's timer, run at the shortest ping interval of the apps served. */
export interface IdleSweep {
  start(): void;
  stop(): void;
  /** Restarts the sweep if it runs and the apps' shortest interval changed. */
  adjust(): void;
}

export function createIdleSweep(ctx: ServerContext): IdleSweep {
  let timer: NodeJS.Timeout | undefined;
  let everyMs = 0;
  const run = guard(ctx.logger, 'sweep', () => sweep(ctx));

  function start(): void {
    if (timer) clearInterval(timer);
    everyMs = sweepEveryMs(ctx);
    timer = setInterval(run, everyMs);
    timer.unref();
  }

  return {
    start,
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
    // Restarted only when the interval changes: apps that change more often than it would otherwise never be
    // swept.
    adjust() {
      if (timer && sweepEveryMs(ctx) !== everyMs) start();
    },
  };
}

function sweepEveryMs(ctx: ServerContext): number {
  const intervals = [...ctx.apps.byId.values()].map((app) => app.config.pingInterval);
  return Math.max(250, Math.min(ctx.apps.fallbacks.pingInterval, ...intervals) * 1000);
}

function sweep(ctx: ServerContext): void {
  const now = Date.now();
  for (const app of ctx.apps.byId.values()) {
    const idleMs = app.config.activityTimeout * 1000;
    const graceMs = app.config.pingInterval * 1000;
    for (const ws of app.sockets) {
      const data = ws.getUserData();
      if (data.pingedAt > 0) {
        if (now - data.pingedAt >= graceMs)
          closeWith(ws, app, ErrorCode.PongNotReceived, 'Pong reply not received');
      } else if (now - data.lastSeen >= idleMs) {
        data.pingedAt = now;
        send(ws, app, encodePing());
      }
    }
  }
}

/** A WebSocket ping or pong arrived: the socket is not silent. */
export function markActive(ws: Socket): void {
  const data = ws.getUserData();
  data.lastSeen = Date.now();
  data.pingedAt = 0;
}
