import { randomBytes } from 'node:crypto';
import {
  type RedisClusterProcesses,
  type RedisProcess,
  startRedis,
  startRedisCluster,
  until,
} from '@herald/test-kit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRedisLink, type RedisLink } from '../src/internal/connection.js';
import { useRedisLayouts } from './redis-layouts.js';

// Publishes are fire-and-forget and carry no per-command timeout (node-redis would arm a 5 s timer and signal for
// each); what bounds them instead is a cap on publishes waiting for Redis. Real redis-servers the tests start, a
// Redis Cluster among them, and one stopped with SIGSTOP: its connections stay open and it answers nothing, as a
// hung Redis does.

const { servers } = useRedisLayouts();
const quiet = { error() {}, ready() {}, reconnecting() {} };

const links: RedisLink[] = [];
const processes: RedisProcess[] = [];
const clusters: RedisClusterProcesses[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const redis of [...processes, ...clusters.flatMap((cluster) => cluster.masters)]) redis.resume();
  await Promise.all(links.splice(0).map((link) => link.close().catch(() => link.destroy())));
  await Promise.all(processes.splice(0).map((redis) => redis.stop()));
  await Promise.all(clusters.splice(0).map((cluster) => cluster.stop()));
});

describe.each(servers)('publishes on $name', ({ server }) => {
  it('arm no command timeout, while other commands keep theirs', async () => {
    const link = createRedisLink(server(), quiet, { subscriber: false });
    links.push(link);
    await link.connect();
    const timeouts = vi.spyOn(AbortSignal, 'timeout');
    const channel = `herald-test-${randomBytes(4).toString('hex')}`;
    await Promise.all(Array.from({ length: 50 }, (_, i) => link.publish(channel, `m${i}`)));
    expect(timeouts).not.toHaveBeenCalled();
    await link.send(channel, ['EXISTS', channel]);
    expect(timeouts).toHaveBeenCalled();
  });
});

describe('a Redis that stops answering', () => {
  it('holds publishes up to the bound, refuses more at once, and delivers those held when it answers again', async () => {
    const redis = await startRedis();
    processes.push(redis);
    const channel = 'herald-test-backlog';
    const received: string[] = [];
    const listening = createRedisLink({ url: redis.url }, quiet);
    const publishing = createRedisLink({ url: redis.url }, quiet, {
      subscriber: false,
      maxPublishesInFlight: 50,
    });
    links.push(listening, publishing);
    await Promise.all([listening.connect(), publishing.connect()]);
    await listening.subscribe(channel, (message) => received.push(message));

    redis.pause();
    const held = Array.from({ length: 50 }, (_, i) => publishing.publish(channel, `m${i}`));
    const refused = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => publishing.publish(channel, `late${i}`)),
    );
    for (const outcome of refused) {
      expect(outcome).toMatchObject({
        status: 'rejected',
        reason: { message: expect.stringContaining('not answering') },
      });
    }

    redis.resume();
    await Promise.all(held);
    await until(() => expect(received).toHaveLength(50));
    expect(received).toEqual(Array.from({ length: 50 }, (_, i) => `m${i}`));
    // Room again once they are through.
    await publishing.publish(channel, 'after');
    await until(() => expect(received.at(-1)).toBe('after'));
  });
});

describe('a Redis Cluster master that stops answering', () => {
  it('holds and refuses only the publishes for that master; the others go on', async () => {
    const cluster = await startRedisCluster();
    clusters.push(cluster);
    const link = createRedisLink({ clusterMode: true, rootNodes: cluster.rootNodes }, quiet, {
      subscriber: false,
      maxPublishesInFlight: 20,
    });
    links.push(link);
    await link.connect();
    // Two channels whose slots two different masters serve.
    const stalled = 'herald-test-{a}';
    const stalledMaster = await cluster.masterOf(stalled);
    let healthy = '';
    for (let i = 0; !healthy; i++) {
      if ((await cluster.masterOf(`herald-test-{b${i}}`)) !== stalledMaster) healthy = `herald-test-{b${i}}`;
    }

    stalledMaster.pause();
    const held = Array.from({ length: 20 }, (_, i) => link.publish(stalled, `m${i}`));
    await expect(link.publish(stalled, 'one too many')).rejects.toThrow('not answering');
    // The other master's publishes are neither held nor refused.
    await expect(link.publish(healthy, 'still flowing')).resolves.toBe(0);

    stalledMaster.resume();
    await Promise.all(held);
    await expect(link.publish(stalled, 'room again')).resolves.toBe(0);
  });
});
