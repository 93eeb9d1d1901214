import {
  type RedisClusterProcesses,
  type RedisProcess,
  startRedis,
  startRedisCluster,
} from '@herald/test-kit';
import { afterAll, beforeAll } from 'vitest';
import type { RedisServerOptions } from '../src/redis-options.js';

// Redis servers started by the tests on random loopback ports (through the test kit), never the machine's own
// Redis on 6379.

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
    await Promise.all([redis?.stop(), redisCluster?.stop()]);
  });
  return {
    url: () => redis?.url,
    servers: [
      { name: 'single Redis', server: () => ({ url: redis?.url }) },
      { name: 'Redis Cluster', server: () => ({ clusterMode: true, rootNodes: redisCluster?.rootNodes }) },
    ],
  };
}
