import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
  const child: ChildProcess = spawn(process.execPath, [BIN, 'server', '--host', '127.0.0.1', '--port', '0'], {
    cwd,
    env: {
      PATH: process.env.PATH,
      REALTIME_APP_ID: app.id,
      REALTIME_APP_KEY: app.key,
      REALTIME_APP_SECRET: app.secret,
    },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`realtime did not start within 60 s:\n${output}`));
    }, 60_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on [^\s]+:(\d+)/.exec(output);
      if (match && output.includes('REST API')) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`realtime exited:\n${output}`));
    });
  });
  return {
    port,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
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
