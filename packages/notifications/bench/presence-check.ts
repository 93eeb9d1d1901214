// What asking "has this recipient a bell open?" costs: `createRealtimePresence` against Herald's real-time server
// (apps/realtime's built bin) on loopback: 500 sequential checks, after 500 to warm up.
// Run after `pnpm build`: pnpm --filter @herald/notifications bench:presence
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createRealtimePresence } from '../src/index.js';

const RUNS = 500;
const APP = { id: 'bench', key: 'bench-key', secret: 'bench-secret' };
const BIN = fileURLToPath(new URL('../../../apps/realtime/dist/bin.js', import.meta.url));

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function startServer(): Promise<{ port: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [BIN, 'server', '--host', '127.0.0.1', '--port', '0'], {
    env: {
      PATH: process.env.PATH,
      REALTIME_APP_ID: APP.id,
      REALTIME_APP_KEY: APP.key,
      REALTIME_APP_SECRET: APP.secret,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the real-time server exited with ${code}: ${output}`)));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const match = /listening on [^\s]+:(\d+)/.exec(output);
      if (match && output.includes('REST API')) resolve(Number(match[1]));
    });
  });
  return {
    port,
    async stop() {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

async function time(check: () => Promise<boolean>): Promise<number[]> {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const start = performance.now();
    await check();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b);
}

const server = await startServer();
try {
  const presence = createRealtimePresence({
    url: `http://127.0.0.1:${server.port}`,
    appId: APP.id,
    key: APP.key,
    secret: APP.secret,
  });
  await time(() => presence.isPresent({ type: 'User', id: 'warm-up' }));
  const times = await time(() => presence.isPresent({ type: 'User', id: 'nobody' }));
  const at = (q: number) =>
    (times[Math.min(times.length - 1, Math.floor(q * times.length))] as number).toFixed(2);
  print(
    `presence check (signed GET /apps/{id}/channels/{name}), ${RUNS} runs: median ${at(0.5)} ms, p99 ${at(0.99)} ms`,
  );
} finally {
  await server.stop();
}
