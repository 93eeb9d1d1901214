import { randomBytes } from 'node:crypto';
import { sleep, until } from '@herald/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedisUsage, type RedisUsageStore } from '../src/usage-store.js';
import { useRedisLayouts } from './redis-layouts.js';

// The usage store on a redis-server and on a three-master Redis Cluster of the test's own: two stores with their
// node ids stand for two nodes adding to one Redis.

const redis = useRedisLayouts();
const MINUTE = 60_000;

const opened: RedisUsageStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((usage) => usage.close()));
});

const sample = (minute: number, counts: { in?: number; out?: number; peak?: number; rate?: number }) => ({
  minute,
  in: counts.in ?? 0,
  out: counts.out ?? 0,
  peakConnections: counts.peak ?? 0,
  rateIn: counts.rate ?? 0,
  rateOut: 0,
});

describe.each(redis.servers)('createRedisUsage on $name', ({ server }) => {
  async function nodes(options: { staleMs?: number } = {}) {
    const keyPrefix = `usage-${randomBytes(4).toString('hex')}:`;
    const made = ['a', 'b'].map((nodeId) => createRedisUsage({ ...server(), keyPrefix, nodeId, ...options }));
    opened.push(...made);
    await Promise.all(made.map((usage) => usage.ready()));
    return made as [RedisUsageStore, RedisUsageStore];
  }

  it('adds up the nodes’ messages per minute, and their most connections', async () => {
    const [a, b] = await nodes();
    const now = Math.floor(Date.now() / MINUTE) * MINUTE;
    a.record('shop', sample(now - MINUTE, { in: 3, out: 10, peak: 2 }));
    a.record('shop', sample(now, { in: 1, peak: 2 }));
    a.record('shop', sample(now, { in: 2, out: 4, peak: 5 }));
    b.record('shop', sample(now, { in: 7, peak: 3 }));
    b.record('other', sample(now, { in: 100, peak: 100 }));
    // Each node writes on a connection of its own: the other's writes land in their own time.
    await until(async () => {
      expect(await a.minutes('shop', now - 10 * MINUTE, now)).toEqual([
        { minute: now - MINUTE, in: 3, out: 10, connections: 2 },
        { minute: now, in: 10, out: 4, connections: 8 },
      ]);
    });
    // A day is the most one read takes: the last day of a longer range.
    expect(await a.minutes('shop', now - 3 * 24 * 60 * MINUTE, now)).toHaveLength(2);
    expect(await a.minutes('shop', now - 3 * 24 * 60 * MINUTE, now - 24 * 60 * MINUTE)).toEqual([]);
  });

  it('sums the rates of the nodes reporting now, and forgets a node’s once it closes or goes stale', async () => {
    const [a, b] = await nodes();
    const now = Date.now();
    a.record('shop', sample(now, { rate: 1.5 }));
    b.record('shop', sample(now, { rate: 2.25 }));
    await until(async () => expect(await a.rates('shop')).toEqual({ in: 3.75, out: 0 }));
    expect(await b.rates('shop')).toEqual({ in: 3.75, out: 0 });
    await b.close();
    expect(await a.rates('shop')).toEqual({ in: 1.5, out: 0 });

    const [c] = await nodes({ staleMs: 1 });
    c.record('shop', sample(now, { rate: 4 }));
    // Its rates count for 1 ms (of Redis's clock): read on the same connection after its write, 20 ms on.
    await sleep(20);
    expect(await c.rates('shop')).toEqual({ in: 0, out: 0 });
  });
});
