import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startProcess } from '@herald/test-kit';

const BIN = fileURLToPath(new URL('../../realtime/dist/bin.js', import.meta.url));

/** A Herald real-time server started from its built bin on a random port. */
export interface RealtimeProcess {
  readonly port: number;
  stop(): Promise<void>;
}

/**
 * Starts `realtime server` with one app and resolves once its banner names the port. A server that does not start
 * within a minute (a generous limit for a busy machine) is killed and the start fails with its output.
 */
export async function startRealtime(app: {
  id: string;
  key: string;
  secret: string;
}): Promise<RealtimeProcess> {
  const cwd = await mkdtemp(join(tmpdir(), 'herald-nc-realtime-'));
  const started = await startProcess(
    process.execPath,
    [BIN, 'server', '--host', '127.0.0.1', '--port', '0'],
    {
      cwd,
      env: {
        PATH: process.env.PATH,
        REALTIME_APP_ID: app.id,
        REALTIME_APP_KEY: app.key,
        REALTIME_APP_SECRET: app.secret,
      },
      // The banner is complete once it named the REST API.
      ready: (output) => (output.includes('REST API') ? /listening on [^\s]+:(\d+)/.exec(output) : null),
      limitMs: 60_000,
    },
  );
  return {
    port: Number(started.match[1]),
    async stop() {
      await started.stop();
    },
  };
}

/** Something a test starts and must end: a server process, a browser, a listening server. */
type Stoppable = { stop?: () => unknown; close?: () => unknown };

/**
 * Awaits starts that run side by side, like `Promise.all`, but when one fails it waits for the others and ends
 * those that did start (`stop()` or `close()`) before throwing. With `Promise.all` in a hook, a server started
 * beside a browser that failed to launch was never assigned, so no `afterAll` could stop it, and the process
 * outlived the test run.
 */
export async function startTogether<T extends readonly unknown[] | []>(
  starts: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = (await Promise.allSettled(starts)) as PromiseSettledResult<unknown>[];
  const failure = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failure === undefined) {
    return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as {
      -readonly [K in keyof T]: Awaited<T[K]>;
    };
  }
  await Promise.allSettled(
    settled.map((result) => {
      if (result.status !== 'fulfilled') return undefined;
      const started = result.value as Stoppable | null;
      return typeof started?.stop === 'function'
        ? started.stop()
        : typeof started?.close === 'function'
          ? started.close()
          : undefined;
    }),
  );
  throw failure.reason;
}
