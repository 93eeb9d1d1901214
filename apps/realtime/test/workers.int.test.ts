import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RedisProcess, sleep, startRedis, until } from '@herald/test-kit';
import Pusher from 'pusher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive } from '../src/control.js';
import { type PusherClient, pusherJsClient } from './pusher-client.js';
import { BIN, type RunningBin, runBin, startBin } from './run-bin.js';

const APP = { id: 'shop', key: 'shop-key', secret: 'shop-secret' };
const METRICS_TOKEN = 'workers-metrics-token-0123456789';
function configDir(config: object): string {
  const cwd = mkdtempSync(join(tmpdir(), 'herald-workers-'));
  writeFileSync(join(cwd, 'realtime.config.json'), JSON.stringify(config));
  return cwd;
}

/** The worker pids the banner lists: `Workers: 2 processes (pids 1, 2) on port …`. */
function workerPids(stdout: string): number[] {
  const match = /Workers: (\d+) processes \(pids ([\d, ]+)\)/.exec(stdout);
  return match ? (match[2] as string).split(', ').map(Number) : [];
}

describe('realtime server --workers 2', () => {
  let redis: RedisProcess;
  let bin: RunningBin;
  let prefix: string;
  const clients: PusherClient[] = [];

  /** Connections per node id, as the cluster counts them in Redis. */
  const connectionsByNode = (): Record<string, number> => {
    const out = spawnSync(
      'redis-cli',
      ['-p', String(redis.port), 'HGETALL', `${prefix}{connections:${APP.id}}`],
      {
        encoding: 'utf8',
      },
    ).stdout.trim();
    const parts = out === '' ? [] : out.split('\n');
    const counts: Record<string, number> = {};
    for (let i = 0; i + 1 < parts.length; i += 2) counts[parts[i] as string] = Number(parts[i + 1]);
    return counts;
  };

  beforeAll(async () => {
    redis = await startRedis();
    prefix = `w${randomBytes(4).toString('hex')}:`;
    const cwd = configDir({
      applications: [APP],
      servers: { herald: { shutdown_grace_period: 1 } },
      // Its own port (0: node:cluster shares one free port among the workers) behind a token.
      metrics: { port: 0, auth_token: METRICS_TOKEN },
      scaling: {
        enabled: true,
        prefix,
        heartbeat_ms: 200,
        dead_after_ms: 1000,
        server: { url: `redis://127.0.0.1:${redis.port}` },
      },
    });
    // Two processes start at once: give them longer than one on a busy machine.
    bin = await startBin(['--workers', '2'], { cwd, timeoutMs: 120_000 });
  }, 150_000);
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await bin?.stop();
    await redis?.stop();
  });

  it('says in its banner that two worker processes share the port', () => {
    expect(bin.stdout).toMatch(new RegExp(`Workers: 2 processes \\(pids \\d+, \\d+\\) on port ${bin.port}`));
    const pids = workerPids(bin.stdout);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(isAlive(pid)).toBe(true);
    expect(pids).not.toContain(bin.child.pid);
  });

  it('serves /metrics on the metrics port every worker shares, behind its token', async () => {
    const match = /Metrics: http:\/\/127\.0\.0\.1:(\d+)\/metrics \(bearer token required\)/.exec(bin.stdout);
    expect(match, bin.stdout).not.toBeNull();
    const url = `http://127.0.0.1:${match?.[1]}/metrics`;
    expect((await fetch(url)).status).toBe(401);
    // Several scrapes, so that each worker answers some (node:cluster hands connections round the workers).
    for (let i = 0; i < 4; i++) {
      const scrape = await fetch(url, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(scrape.status).toBe(200);
      expect(await scrape.text()).toContain('app_id="shop"');
    }
    expect((await fetch(`http://127.0.0.1:${bin.port}/metrics`)).status).toBe(404);
  });

  it('serves clients on both workers, and a REST publish reaches every client exactly once', async () => {
    const received = new Map<number, string[]>();
    for (let i = 0; i < 24; i++) {
      const client = pusherJsClient(bin.port, APP.key);
      clients.push(client);
      received.set(i, []);
      const channel = client.subscribe('orders');
      channel.bind('shipped', (data: { n: number }) => received.get(i)?.push(String(data.n)));
    }
    await until(
      () => clients.every((client) => client.channel('orders')?.subscribed === true),
      'every client to be subscribed',
    );
    // Both workers hold some of the sockets (each worker is a cluster node with its own id).
    await until(
      () => Object.values(connectionsByNode()).reduce((a, b) => a + b, 0) === 24,
      'the counts in Redis',
    );
    const byNode = connectionsByNode();
    expect(Object.keys(byNode)).toHaveLength(2);
    for (const [node, count] of Object.entries(byNode)) {
      expect(node).toMatch(/-w[12]$/);
      expect(count).toBeGreaterThan(0);
    }

    const sdk = new Pusher({
      appId: APP.id,
      key: APP.key,
      secret: APP.secret,
      host: '127.0.0.1',
      port: String(bin.port),
    });
    // Several requests, so both workers' REST APIs publish (each lands on whichever worker the kernel picks).
    for (let n = 1; n <= 6; n++) {
      const response = await sdk.trigger('orders', 'shipped', { n });
      expect(response.status).toBe(200);
    }
    await until(
      () => [...received.values()].every((events) => events.length >= 6),
      'every client to get 6 events',
    );
    // A duplicate would come from whichever worker published the event, and a marker lands on whichever worker the
    // kernel picks: no path is shared that a marker could follow, so a short window stands in.
    await sleep(300);
    for (const events of received.values()) expect(events.sort()).toEqual(['1', '2', '3', '4', '5', '6']);
  });

  it('restarts a worker that dies, with a fresh node id', async () => {
    const [victim] = workerPids(bin.stdout) as [number];
    process.kill(victim, 'SIGKILL');
    await until(() => bin.stdout.includes('"msg":"worker restarted"'), 'the parent to restart the worker');
    const replacement = /"worker":\d+,"pid":(\d+),"msg":"worker restarted"/.exec(bin.stdout);
    expect(Number(replacement?.[1])).not.toBe(victim);
    expect(isAlive(Number(replacement?.[1]))).toBe(true);
    // The dead worker's sockets reconnect to the surviving one; the replacement joins the cluster as a new node
    // (the dead one is reaped) and takes new connections.
    const nodes = () =>
      spawnSync('redis-cli', ['-p', String(redis.port), 'ZRANGE', `${prefix}{nodes}`, '0', '-1'], {
        encoding: 'utf8',
      })
        .stdout.trim()
        .split('\n');
    await until(
      () => nodes().length === 2 && nodes().some((id) => id.endsWith('r1')),
      'the replacement node',
    );
    await until(
      () => Object.values(connectionsByNode()).reduce((a, b) => a + b, 0) === 24,
      'the sockets to come back',
    );
    for (let i = 0; i < 24; i++) clients.push(pusherJsClient(bin.port, APP.key));
    await until(
      () => (Object.entries(connectionsByNode()).find(([id]) => id.endsWith('r1'))?.[1] ?? 0) > 0,
      'a new socket on the replacement',
    );
  }, 120_000);

  it('stops every process on SIGTERM', async () => {
    const pids = [
      ...workerPids(bin.stdout).filter(isAlive),
      Number(/"worker":\d+,"pid":(\d+),"msg":"worker restarted"/.exec(bin.stdout)?.[1]),
    ];
    expect(pids.every(isAlive)).toBe(true);
    for (const client of clients) client.disconnect();
    bin.child.kill('SIGTERM');
    expect(await bin.exited).toBe(0);
    await until(() => !pids.some(isAlive), { what: 'every worker to exit', limitMs: 15_000 });
  });
});

/**
 * Spawns `realtime server --workers 2` on a free port with scaling on `redis`, and records its stdout.
 * `detached` gives it its own process group, as a shell gives a foreground command.
 */
function spawnWorkers(redis: RedisProcess, gracePeriod: number, detached: boolean) {
  const cwd = configDir({
    applications: [APP],
    servers: { herald: { shutdown_grace_period: gracePeriod } },
    scaling: {
      enabled: true,
      prefix: `w${randomBytes(4).toString('hex')}:`,
      server: { url: `redis://127.0.0.1:${redis.port}` },
    },
  });
  const child = spawn(
    process.execPath,
    [BIN, 'server', '--workers', '2', '--port', '0', '--host', '127.0.0.1'],
    {
      cwd,
      detached,
      env: { PATH: process.env.PATH, REALTIME_TRANSPORT: process.env.REALTIME_TRANSPORT ?? 'auto' },
    },
  );
  const run = { child, stdout: '', code: undefined as number | null | undefined };
  child.stdout?.on('data', (chunk) => (run.stdout += chunk));
  child.on('exit', (code) => (run.code = code));
  return run;
}

describe('realtime server --workers 2 in a terminal', () => {
  it('stops every process on Ctrl-C (SIGINT to the whole process group), each worker draining once', async () => {
    const redis = await startRedis();
    try {
      // Ctrl-C signals the parent and every worker of its process group.
      const run = spawnWorkers(redis, 0, true);
      const { child } = run;
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      await until(() => run.stdout.includes('REST API'), { what: 'the banner', limitMs: 120_000 });
      const pids = workerPids(run.stdout);
      expect(pids).toHaveLength(2);
      process.kill(-(child.pid as number), 'SIGINT');
      expect(await exited).toBe(0);
      await until(() => !pids.some(isAlive), { what: 'every worker to exit', limitMs: 15_000 });
      // Each worker drained once, whichever came first: the terminal's signal or the parent's request.
      expect(run.stdout.match(/"msg":"draining"/g)).toHaveLength(2);
      expect(run.stdout).not.toContain('stopping now');
    } finally {
      await redis.stop();
    }
  }, 180_000);
});

describe('realtime server --workers 2, stopped by its parent', () => {
  it('takes a Ctrl-C that reaches a worker after the parent’s stop request as that same request', async () => {
    const redis = await startRedis();
    let run: ReturnType<typeof spawnWorkers> | undefined;
    let pids: number[] = [];
    const sockets: PusherClient[] = [];
    try {
      // Long enough that the workers are still draining their sockets when the late Ctrl-C comes.
      run = spawnWorkers(redis, 3, false);
      const started = run;
      await until(() => started.stdout.includes('REST API'), { what: 'the banner', limitMs: 120_000 });
      pids = workerPids(started.stdout);
      const port = Number(/on port (\d+)/.exec(started.stdout)?.[1]);
      // Sockets on both workers (the kernel spreads them), so each has something to drain.
      for (let i = 0; i < 8; i++) sockets.push(pusherJsClient(port, APP.key));
      await until(() => sockets.every((socket) => socket.connection.state === 'connected'), 'the sockets');
      // The parent alone is stopped; it asks each worker to stop over IPC.
      started.child.kill('SIGTERM');
      await until(
        () => (started.stdout.match(/"signal":"parent"/g) ?? []).length === 2,
        'both workers to stop',
      );
      // Then the terminal's Ctrl-C reaches the workers, late: it must not count as a second signal.
      let signalled = 0;
      for (const pid of pids) {
        if (!isAlive(pid)) continue;
        process.kill(pid, 'SIGINT');
        signalled += 1;
      }
      expect(signalled).toBeGreaterThan(0);
      await until(() => started.code !== undefined, 'the parent to exit');
      expect(started.code).toBe(0);
      expect(started.stdout).not.toContain('stopping now');
    } finally {
      for (const socket of sockets) socket.disconnect();
      // Nothing outlives a failed run.
      for (const pid of [run?.child.pid, ...pids]) {
        if (pid !== undefined && isAlive(pid)) process.kill(pid, 'SIGKILL');
      }
      await redis.stop();
    }
  }, 180_000);
});

describe('realtime server --workers without scaling', () => {
  it('refuses to start, naming the key and why', async () => {
    const cwd = configDir({ applications: [APP] });
    const result = await runBin(['server', '--workers', '2', '--port', '0'], { cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('servers.herald.workers: is 2');
    expect(result.stderr).toContain('needs scaling.enabled');
    expect(result.stderr).toMatch(/would not share channels, presence/);
  });

  it('refuses REALTIME_WORKERS=3 the same way, and a --workers that is not a number', async () => {
    const cwd = configDir({ applications: [APP] });
    const fromEnv = await runBin(['server', '--port', '0'], { cwd, env: { REALTIME_WORKERS: '3' } });
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.stderr).toContain('servers.herald.workers: is 3');
    const bad = await runBin(['server', '--workers', 'two'], { cwd });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--workers: "two" is not a whole number');
  });
});
