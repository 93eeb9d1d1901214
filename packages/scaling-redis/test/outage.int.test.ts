import { encodeMemberAdded } from '@herald/protocol-core';
import { type RedisProcess, sleep, startRedis, until } from '@herald/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isScalingRedisError } from '../src/errors.js';
import { createRedisClusterNode, type RedisClusterNode } from '../src/redis-cluster.js';
import { HEARTBEAT_MS, recordingListener, startOutagePair } from './cluster-nodes.js';

let redis: RedisProcess;
const nodes: RedisClusterNode[] = [];

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await Promise.all(nodes.map((node) => node.stop()));
  await redis.stop();
});

describe.each(['interest', 'broadcast'] as const)(
  'the Redis adapter (%s routing) when Redis goes away',
  (routing) => {
    it('keeps the server running, then resubscribes and rebuilds each node share from its local state', async () => {
      const prefix = `outage-${routing}:`;
      // Each node reconnects on its own backoff (up to 2 s apart): the dead-after window, which bounds how long a
      // node waits for the others to resubscribe before it announces its members again, is wider than that.
      const { a, b, aListener, bListener, logger, errors, resynced } = await startOutagePair(
        { url: redis.url, keyPrefix: prefix, channel: `${prefix}broadcast`, routing },
        nodes,
        { heartbeatMs: HEARTBEAT_MS, deadAfterMs: 5000 },
      );
      // With interest routing, b hears the channel 'news' only as a subscriber of it.
      const interested = routing === 'interest';
      if (interested) await b.setLocalSubscriptions('1', 'news', 1);
      const bNews = interested ? [{ appId: '1', channel: 'news', count: 1 }] : [];
      const room = { appId: '1', channel: 'presence-room', maxMembers: 10 };
      const alice = { userId: 'alice', userInfo: { name: 'Alice' } };
      const bob = { userId: 'bob', userInfo: { name: 'Bob' } };
      expect(await a.admitConnection('1', 10)).toBe(true);
      expect(await b.admitConnection('1', 10)).toBe(true);
      await a.joinPresence({ ...room, socketId: '1.1', member: alice });
      await b.joinPresence({ ...room, socketId: '2.1', member: bob });
      await a.setLocalSubscriptions('1', 'presence-room', 1);
      await b.setLocalSubscriptions('1', 'presence-room', 1);
      // What the server holds in memory, which the adapter writes back after the outage.
      aListener.state = {
        connections: [{ appId: '1', count: 2 }],
        subscriptions: [{ appId: '1', channel: 'presence-room', count: 1 }],
        presence: [{ appId: '1', channel: 'presence-room', socketId: '1.1', member: alice }],
      };
      bListener.state = {
        connections: [{ appId: '1', count: 1 }],
        subscriptions: [{ appId: '1', channel: 'presence-room', count: 1 }, ...bNews],
        presence: [{ appId: '1', channel: 'presence-room', socketId: '2.1', member: bob }],
      };
      resynced.mockClear();
      // Running for a few heartbeats, as nodes are before an outage: each has seen the other alive.
      await sleep(3 * HEARTBEAT_MS);

      await redis.stop();
      const frame = '{"event":"during","channel":"news","data":"{}"}';
      const startedAt = Date.now();
      for (let i = 0; i < 1000; i += 1) {
        a.broadcast({ type: 'deliver', delivery: { appId: '1', channel: 'news', frame } });
      }
      await a.setLocalSubscriptions('1', 'news', 1);
      a.storeCachedEvent('1', 'cache-x', { event: 'e', data: '{}', frame: '{}' }, 1000);
      // Failing open: a connection during the outage is let in and counted locally.
      expect(await a.admitConnection('1', 10)).toBe(true);
      const refused = await a
        .joinPresence({ ...room, socketId: '1.2', member: alice })
        .catch((error: unknown) => error);
      expect(isScalingRedisError(refused) && refused.code).toBe('unavailable');
      await expect(b.connectionCount('1')).rejects.toMatchObject({ code: 'unavailable' });
      // Nothing is queued: the writes fail at once rather than waiting for Redis.
      expect(Date.now() - startedAt).toBeLessThan(1000);
      await sleep(3 * HEARTBEAT_MS);
      expect(errors).toHaveBeenCalledWith('publish');
      expect(logger.warn).toHaveBeenCalledWith(
        expect.stringContaining('redis unavailable'),
        expect.any(Object),
      );

      // A fresh, empty Redis on the same port: everything the cluster knew is gone.
      await redis.restart();
      await until(
        async () => {
          expect(resynced).toHaveBeenCalledTimes(2);
          expect(resynced.mock.calls.flat().sort()).toEqual(['a', 'b']);
          expect(await b.connectionCount('1')).toBe(3);
          expect((await a.presenceUsers('1', 'presence-room')).sort()).toEqual(['alice', 'bob']);
          expect(await a.channel('1', 'presence-room')).toEqual({ subscriptionCount: 2, userCount: 2 });
          expect(await b.channel('1', 'news')).toEqual({ subscriptionCount: interested ? 2 : 1 });
        },
        { limitMs: 30_000 },
      );
      // Each re-join made its user new again in the empty Redis: the other node hears member_added.
      await until(() => {
        expect(bListener.deliveries).toContainEqual({
          appId: '1',
          channel: 'presence-room',
          frame: encodeMemberAdded('presence-room', 'alice', { name: 'Alice' }),
        });
        expect(aListener.deliveries).toContainEqual({
          appId: '1',
          channel: 'presence-room',
          frame: encodeMemberAdded('presence-room', 'bob', { name: 'Bob' }),
        });
      });
      expect(bListener.deliveries.filter((delivery) => delivery.channel === 'news')).toEqual([]);
      const after = '{"event":"after","channel":"news","data":"{}"}';
      await until(() => {
        a.broadcast({ type: 'deliver', delivery: { appId: '1', channel: 'news', frame: after } });
        expect(bListener.deliveries.some((delivery) => delivery.frame === after)).toBe(true);
      });
      expect(logger.info).toHaveBeenCalledWith('redis available again', expect.any(Object));
    });

    it('keeps beating while it waits for a node that never comes back, so no node takes it for dead', async () => {
      const prefix = `outage-wait-${routing}:`;
      // After the outage, a waits up to deadAfterMs for every node it knew to resubscribe before it announces
      // alice again. The window is wide enough that nothing else (a busy machine) makes a node miss it.
      const timing = { heartbeatMs: 250, deadAfterMs: 1500 };
      const { a, aListener, logger, resynced, start } = await startOutagePair(
        { url: redis.url, keyPrefix: prefix, channel: `${prefix}broadcast`, routing },
        nodes,
        timing,
      );
      const c = await start('c');
      const room = { appId: '1', channel: 'presence-room', maxMembers: 10 };
      const alice = { userId: 'alice', userInfo: { name: 'Alice' } };
      await a.joinPresence({ ...room, socketId: '1.1', member: alice });
      await a.setLocalSubscriptions('1', 'presence-room', 1);
      aListener.state = {
        connections: [],
        subscriptions: [{ appId: '1', channel: 'presence-room', count: 1 }],
        presence: [{ appId: '1', channel: 'presence-room', socketId: '1.1', member: alice }],
      };
      // A few beats, so each node has seen all three alive.
      await sleep(3 * timing.heartbeatMs);

      await redis.stop();
      c.crash(); // Gone while Redis was away: it never resubscribes.
      resynced.mockClear();
      await redis.restart();
      const waited = 'announcing presence changes before every node resubscribed';
      await until(
        () => {
          expect(logger.warn).toHaveBeenCalledWith(waited, { nodeId: 'a' });
          expect(resynced.mock.calls.flat().sort()).toEqual(['a', 'b']);
        },
        { limitMs: 30_000 },
      );
      // Several heartbeats and dead-after windows past the wait: a lapse would show by now as a second rewrite of
      // a's share (its own heartbeat found lapsed) or as a reap of a by b.
      await sleep(2 * timing.deadAfterMs);
      expect(resynced.mock.calls.flat().sort()).toEqual(['a', 'b']);
      expect(logger.warn).not.toHaveBeenCalledWith('reaping a dead node', expect.anything());
      expect(await a.presenceUsers('1', 'presence-room')).toEqual(['alice']);
    });
  },
);

describe('the Redis adapter without Redis', () => {
  it('rejects start when Redis cannot be reached', async () => {
    const node = createRedisClusterNode({ url: 'redis://127.0.0.1:1', timeout: 0.2 });
    await expect(node.start(recordingListener())).rejects.toMatchObject({ code: 'unavailable' });
  });
});
