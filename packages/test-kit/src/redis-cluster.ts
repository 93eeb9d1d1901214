import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { redisCli, redisCliTool } from './internal/redis-cli.js';
import { type RedisProcess, startRedis } from './redis-server.js';
import { until } from './until.js';

/** Three redis-server masters joined into one Redis Cluster. */
export interface RedisClusterProcesses {
  /** `redis://` URLs of the masters, as a cluster client's root nodes. */
  readonly rootNodes: string[];
  readonly ports: number[];
  /** The three masters; `restart()` brings one back on its port with its nodes.conf (and no data). */
  readonly masters: readonly RedisProcess[];
  /** The master that serves `key`'s slot. */
  masterOf(key: string): Promise<RedisProcess>;
  /** Waits until every master reports `cluster_state:ok`. */
  healthy(limitMs?: number): Promise<void>;
  /** Stops every master and removes the cluster's folder. */
  stop(): Promise<void>;
}

const MASTERS = 3;
const ATTEMPTS = 3;

/** Starts three masters in cluster mode (with `args` added) on free ports and joins them into one Redis Cluster. */
export async function startRedisCluster(args: readonly string[] = []): Promise<RedisClusterProcesses> {
  const dir = mkdtempSync(join(tmpdir(), 'herald-redis-cluster-'));
  const masters: RedisProcess[] = [];
  const stop = async () => {
    await Promise.all(masters.map((master) => master.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  const healthy = async (limitMs = 10_000) => {
    for (const master of masters) {
      await until(async () => (await redisCli(master.port, 'CLUSTER', 'INFO')).includes('cluster_state:ok'), {
        what: `cluster_state:ok on port ${master.port}`,
        limitMs,
      });
    }
  };
  try {
    for (let i = 0; i < MASTERS; i += 1) masters.push(await startMaster(dir, args));
    const addresses = masters.map((master) => `127.0.0.1:${master.port}`);
    await redisCliTool('--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes');
    await healthy();
  } catch (error) {
    await stop(); // No server outlives a failed start.
    throw error;
  }
  return {
    rootNodes: masters.map((master) => master.url),
    ports: masters.map((master) => master.port),
    masters,
    healthy,
    masterOf: (key) => masterOf(masters, key),
    stop,
  };
}

async function startMaster(dir: string, args: readonly string[]): Promise<RedisProcess> {
  // The nodes.conf is named after the port, so the port is chosen here; another suite may take it first, and then
  // a new one is tried.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const clusterArgs = [
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      join(dir, `nodes-${port}.conf`),
    ];
    try {
      return await startRedis({ port, cwd: dir, args: [...clusterArgs, '--dir', dir, ...args] });
    } catch (error) {
      if (attempt >= ATTEMPTS) throw error;
    }
  }
}

async function masterOf(masters: readonly RedisProcess[], key: string): Promise<RedisProcess> {
  const first = masters[0]?.port ?? 0;
  const slot = Number(await redisCli(first, 'CLUSTER', 'KEYSLOT', key));
  // CLUSTER NODES lines: id host:port@bus flags master ping pong epoch link slot-range…
  for (const line of (await redisCli(first, 'CLUSTER', 'NODES')).split('\n')) {
    const [, address = '', , , , , , , ...ranges] = line.split(' ');
    const port = Number(address.split('@')[0]?.split(':')[1]);
    const owns = ranges.some((range) => {
      const [from = Number.NaN, to = from] = range.split('-').map(Number);
      return slot >= from && slot <= to;
    });
    const master = masters.find((each) => each.port === port);
    if (owns && master) return master;
  }
  throw new Error(`no master serves slot ${slot} of ${key}`);
}
