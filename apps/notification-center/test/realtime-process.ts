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

/** Starts `realtime server` with one app and resolves once its banner names the port. */
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
    const timer = setTimeout(() => reject(new Error(`realtime did not start:\n${output}`)), 10_000);
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
