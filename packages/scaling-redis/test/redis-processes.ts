import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import type { RedisServerOptions } from '../src/redis-options.js';

// Redis servers started by the tests on random loopback ports, never the machine's own Redis on 6379.

const run = promisify(execFile);

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args]);
  return stdout.trim();
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let ok = false;
    try {
      ok = await check();
    } catch (error) {
      // A check that knows it can never pass (the process exited) says so; a refused connection just waits.
      if (error instanceof Error && error.message.startsWith('redis-server exited')) throw error;
    }
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface RedisProcess {
  readonly port: number;
  readonly url: string;
  /** SIGKILLs the process and waits for it to exit. */
  kill(): Promise<void>;
  /** Starts a fresh (empty) server on the same port, killing the old one first if it still runs. */
  restart(): Promise<void>;
  /** Stops the process (SIGSTOP): its connections stay open and nothing is answered until `resume`. */
  pause(): void;
  /** Lets a paused process go on (SIGCONT). */
  resume(): void;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

/** Starts a redis-server without persistence on a free port (or `port`), with extra arguments. */
export async function startRedis(extra: readonly string[] = [], port?: number): Promise<RedisProcess> {
  // A free port can be taken by another process before redis binds it (the machine runs other suites): then the
  // server exits at once, and a new port is tried.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startRedisOn(extra, port ?? (await freePort()));
    } catch (error) {
      if (port !== undefined || attempt >= 3) throw error;
    }
  }
}

async function startRedisOn(extra: readonly string[], chosen: number): Promise<RedisProcess> {
  let child: ChildProcess | undefined;
  const launch = async () => {
    const started = spawn(
      'redis-server',
      ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extra],
      { stdio: 'ignore' },
    );
    child = started;
    await until(async () => {
      if (started.exitCode !== null) throw new Error(`redis-server exited with ${started.exitCode}`);
      return (await cli(chosen, 'PING')) === 'PONG';
    }, `redis on ${chosen}`);
  };
  const kill = async () => {
    if (!child) return;
    const current = child;
    child = undefined;
    const running = current.exitCode === null && current.signalCode === null;
    if (running && current.pid !== undefined) process.kill(current.pid, 'SIGKILL');
    await exited(current);
  };
  await launch().catch(async (error: unknown) => {
    await kill();
    throw error;
  });
  const restart = async () => {
    await kill(); // Never two servers for one port, and never one the suite cannot kill.
    await launch();
  };
  const signal = (name: NodeJS.Signals) => {
    if (child?.pid !== undefined && child.exitCode === null) process.kill(child.pid, name);
  };
  return {
    port: chosen,
    url: `redis://127.0.0.1:${chosen}`,
    kill,
    restart,
    pause: () => signal('SIGSTOP'),
    resume: () => signal('SIGCONT'),
  };
}

export interface RedisClusterProcesses {
  readonly rootNodes: string[];
  /** The three masters; `restart()` brings one back on its port with its nodes.conf (and no data). */
  readonly masters: readonly RedisProcess[];
  /** The master that serves `key`'s slot. */
  masterOf(key: string): Promise<RedisProcess>;
  /** Waits until every master reports `cluster_state:ok`. */
  healthy(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Starts three masters with cluster mode on (and `extra` arguments) and joins them into one Redis Cluster. */
export async function startRedisCluster(extra: readonly string[] = []): Promise<RedisClusterProcesses> {
  const dir = mkdtempSync(join(tmpdir(), 'herald-redis-cluster-'));
  const masters: RedisProcess[] = [];
  const stop = async () => {
    await Promise.all(masters.map((master) => master.kill()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 3; i += 1) {
      // As in startRedis: another suite may take the free port first, and then a new one is tried.
      for (let attempt = 1; ; attempt++) {
        const port = await freePort();
        try {
          masters.push(
            await startRedis(
              [
                ...['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${port}.conf`)],
                ...['--dir', dir, ...extra],
              ],
              port,
            ),
          );
          break;
        } catch (error) {
          if (attempt >= 3) throw error;
        }
      }
    }
    const addresses = masters.map((master) => `127.0.0.1:${master.port}`);
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes']);
  } catch (error) {
    await stop(); // No server outlives a failed start.
    throw error;
  }
  const healthy = async (timeoutMs = 10_000) => {
    for (const master of masters) {
      await until(
        async () => (await cli(master.port, 'CLUSTER', 'INFO')).includes('cluster_state:ok'),
        'cluster_state:ok',
        timeoutMs,
      );
    }
  };
  await healthy().catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return {
    rootNodes: masters.map((master) => master.url),
    masters,
    healthy,
    async masterOf(key) {
      const slot = Number(await cli(masters[0]?.port ?? 0, 'CLUSTER', 'KEYSLOT', key));
      // CLUSTER NODES lines: id host:port@bus flags master ping pong epoch link slot-range…
      for (const line of (await cli(masters[0]?.port ?? 0, 'CLUSTER', 'NODES')).split('\n')) {
        const [, address = '', , , , , , , ...ranges] = line.split(' ');
        const port = Number(address.split('@')[0]?.split(':')[1]);
        const owns = ranges.some((range) => {
          const [from = NaN, to = from] = range.split('-').map(Number);
          return slot >= from && slot <= to;
        });
        const master = masters.find((each) => each.port === port);
        if (owns && master) return master;
      }
      throw new Error(`no master serves slot ${slot} of ${key}`);
    },
    stop,
  };
}

/** The two Redis layouts a suite runs against, each as the options an adapter or queue takes. */
export interface RedisLayouts {
  /** The single redis-server's URL, once started. */
  readonly url: () => string | undefined;
  readonly servers: ReadonlyArray<{ readonly name: string; readonly server: () => RedisServerOptions }>;
}

/**
 * Starts, for the calling test file, one redis-server and a three-master Redis Cluster of its own (before all its
 * tests) and stops them after.
 */
export function useRedisLayouts(): RedisLayouts {
  let redis: RedisProcess | undefined;
  let redisCluster: RedisClusterProcesses | undefined;
  beforeAll(async () => {
    // Both starts settle before the hook ends, and each one that started is kept for afterAll to stop: with
    // Promise.all, a redis-server started beside a cluster that failed was never assigned and outlived the run.
    const [single, cluster] = await Promise.allSettled([startRedis(), startRedisCluster()]);
    if (single.status === 'fulfilled') redis = single.value;
    if (cluster.status === 'fulfilled') redisCluster = cluster.value;
    for (const start of [single, cluster]) if (start.status === 'rejected') throw start.reason;
  }, 60_000);
  afterAll(async () => {
    await Promise.all([redis?.kill(), redisCluster?.stop()]);
  });
  return {
    url: () => redis?.url,
    servers: [
      { name: 'single Redis', server: () => ({ url: redis?.url }) },
      { name: 'Redis Cluster', server: () => ({ clusterMode: true, rootNodes: redisCluster?.rootNodes }) },
    ],
  };
}
