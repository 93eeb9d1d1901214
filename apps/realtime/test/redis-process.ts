import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** A redis-server this test started itself (never the machine's shared one). */
export interface RedisProcess {
  readonly port: number;
  stop(): Promise<void>;
  /** Starts it again on the same port after a stop. */
  restart(): Promise<void>;
}

async function waitForPing(port: number, child?: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child && child.exitCode !== null)
      throw new Error(`redis-server on ${port} exited with ${child.exitCode}`);
    const ping = spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' });
    if (ping.stdout.trim() === 'PONG') return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`redis-server on ${port} did not answer`);
}

function launch(port: number, extra: string[] = [], cwd?: string): ChildProcess {
  return spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extra],
    {
      stdio: 'ignore',
      cwd,
    },
  );
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** Starts a standalone redis-server on a free port. */
export async function startRedis(): Promise<RedisProcess> {
  // Another process may take the free port before redis binds it (other suites run on this machine): then
  // redis-server exits at once and another port is tried.
  let port = await freePort();
  let child = launch(port);
  for (let attempt = 1; ; attempt++) {
    try {
      await waitForPing(port, child);
      break;
    } catch (error) {
      await kill(child);
      if (attempt >= 3) throw error;
      port = await freePort();
      child = launch(port);
    }
  }
  return {
    port,
    stop: () => kill(child),
    restart: async () => {
      child = launch(port);
      await waitForPing(port, child);
    },
  };
}

/** Starts three redis-server masters and joins them into a Redis Cluster. */
export async function startRedisCluster(): Promise<{ ports: number[]; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'herald-redis-cluster-'));
  const ports = [await freePort(), await freePort(), await freePort()];
  const children = ports.map((port) =>
    launch(port, ['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${port}.conf`)], dir),
  );
  for (const port of ports) await waitForPing(port);
  const created = spawnSync(
    'redis-cli',
    [
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ],
    { encoding: 'utf8' },
  );
  if (created.status !== 0) throw new Error(`cluster create failed: ${created.stdout}${created.stderr}`);
  const until = Date.now() + 10_000;
  for (;;) {
    const info = ports.map(
      (port) => spawnSync('redis-cli', ['-p', String(port), 'cluster', 'info'], { encoding: 'utf8' }).stdout,
    );
    if (info.every((text) => text.includes('cluster_state:ok'))) break;
    if (Date.now() > until) throw new Error('Redis Cluster did not become ready');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { ports, stop: async () => void (await Promise.all(children.map(kill))) };
}

/**
 * Writes the config of one cluster node into a new folder and returns it: `config` plus scaling through the given
 * redis-server under `prefix`, with heartbeats fast enough for a test to see a dead node reaped.
 */
export function clusterNodeDir(options: {
  readonly prefix: string;
  readonly nodeId: string;
  readonly redisPort: number;
  readonly config: Record<string, unknown>;
}): string {
  const cwd = mkdtempSync(join(tmpdir(), `herald-${options.nodeId}-`));
  const config = {
    ...options.config,
    scaling: {
      enabled: true,
      prefix: options.prefix,
      node_id: options.nodeId,
      heartbeat_ms: 200,
      dead_after_ms: 1000,
      server: { url: `redis://127.0.0.1:${options.redisPort}` },
    },
  };
  writeFileSync(join(cwd, 'realtime.config.json'), JSON.stringify(config));
  return cwd;
}
