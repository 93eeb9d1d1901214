// Slow consumers: a socket whose unsent bytes pass the limit is closed with 4100 (Pusher's "over capacity,
// reconnect later") rather than losing frames without knowing. The check is a sweep off the fan-out path: fan-out
// stays the transport's native topic publish with no per-socket work, and the transport's own backpressure cap
// (set above the limit) bounds a stalled reader's memory between two sweeps.

import { ErrorCode } from '@herald/protocol-core';
import { guard } from './guard.js';
import { closeWith } from './send.js';
import type { ServerContext } from './state.js';

/** What happens to a socket whose unsent bytes pass the limit. */
export type SlowConsumerPolicy = 'close' | 'drop';

// One native call per socket, so 10 000 sockets cost well under a millisecond a sweep. A stalled reader holds at
// most the limit plus what was published to it within one sweep.
const SWEEP_EVERY_MS = 100;

// Room above the limit for frames published to a socket between two sweeps, and then for its `pusher:error` and
// close frame (a transport drops every frame past its cap, the close frame too): 8 MiB is 80 MB/s to one socket.
const CLOSE_HEADROOM_BYTES = 8 * 1024 * 1024;

/**
 * The transport's backpressure cap (frames past it are dropped): with `close`, the limit plus room for what arrives
 * before the sweep closes the socket; with `drop`, the limit itself.
 */
export function backpressureCap(limit: number, policy: SlowConsumerPolicy): number {
  return policy === 'close' ? limit + Math.max(limit, CLOSE_HEADROOM_BYTES) : limit;
}

/** The sweep's timer. */
export interface SlowConsumerSweep {
  start(): void;
  stop(): void;
}

export function createSlowConsumerSweep(ctx: ServerContext, limit: number): SlowConsumerSweep {
  let timer: NodeJS.Timeout | undefined;
  const run = guard(ctx.logger, 'slow consumers', () => closeSlowConsumers(ctx, limit));
  return {
    start() {
      if (timer) return;
      timer = setInterval(run, SWEEP_EVERY_MS);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}

function closeSlowConsumers(ctx: ServerContext, limit: number): void {
  for (const app of ctx.apps.byId.values()) {
    for (const ws of app.sockets) {
      const buffered = ws.getBufferedAmount();
      if (buffered <= limit) continue;
      ctx.metrics.slowConsumersClosed.inc();
      ctx.logger.info('slow consumer closed', {
        scope: 'socket.connection',
        appId: app.config.id,
        socketId: ws.getUserData().socketId,
        buffered,
      });
      // Closing removes the socket from `app.sockets` while it is iterated, which a Set allows.
      closeWith(
        ws,
        app,
        ErrorCode.OverCapacity,
        `Connection is not reading fast enough (over ${limit} unsent bytes)`,
      );
    }
  }
}
