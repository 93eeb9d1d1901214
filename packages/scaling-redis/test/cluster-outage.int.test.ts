import { encodeMemberAdded } from '@herald/protocol-core';
import {
  type RedisClusterProcesses,
  type RedisProcess,
  sleep,
  startRedisCluster,
  until,
} from '@herald/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topicNames } from '../src/cluster/routing.js';
import type { RedisClusterNode } from '../src/redis-cluster.js';
import { HEARTBEAT_MS, type spyLogger, startOutagePair } from './cluster-nodes.js';

// Masters of a three-master Redis Cluster die (SIGKILL) mid-traffic and come back on their ports with their
// nodes.conf but no data, as masters without persistence do: the cluster heals, the adapter's node clients
// reconnect, the sharded subscription is restored, and each node rewrites its share of the keys that were lost.

// Redis's default is 15 s; a short node timeout lets one scenario outlast it (the cluster marks the master FAIL
// and refuses every command with CLUSTERDOWN) within the test's budget.
const NODE_TIMEOUT_MS = 1000;

let redisCluster: RedisClusterProcesses | undefined;
const nodes: RedisClusterNode[] = [];

beforeAll(async () => {
  redisCluster = await startRedisCluster(['--cluster-node-timeout', String(NODE_TIMEOUT_MS)]);
});

afterAll(async () => {
  await Promise.allSettled(nodes.map((node) => node.stop()));
  await redisCluster?.stop();
});

type SpyLogger = ReturnType<typeof spyLogger>;

/** Every call to the spy logger, in the order made. */
function logged(logger: SpyLogger) {
  return (['debug', 'info', 'warn', 'error'] as const)
    .flatMap((level) =>
      logger[level].mock.calls.map(([message, fields], i) => ({
        level,
        message,
        fields,
        order: logger[level].mock.invocationCallOrder[i] ?? 0,
      })),
    )
    .sort((x, y) => x.order - y.order);
}
const presenceKey = (prefix: string, channel: string) => `${prefix}{presence:1:${channel}}:users`;

/** A presence channel whose keys live on `master` (or, with `not`, on another master). */
async function presenceChannelOn(
  cluster: RedisClusterProcesses,
  prefix: string,
  master: RedisProcess,
  not = false,
) {
  for (let i = 0; i < 200; i += 1) {
    const channel = `presence-room-${i}`;
    if (((await cluster.masterOf(presenceKey(prefix, channel))) === master) !== not) return channel;
  }
  throw new Error('no presence channel found for the master');
}

interface Scenario {
  readonly name: string;
  /** Kills every master, not just the one serving the broadcast channel. */
  readonly all: boolean;
  /** How long the masters stay down. */
  readonly outageMs: number;
}

const scenarios: Scenario[] = [
  { name: 'the broadcast channel master restarts at once', all: false, outageMs: 300 },
  {
    name: 'the broadcast channel master stays down past the node timeout (cluster down)',
    all: false,
    outageMs: 3 * NODE_TIMEOUT_MS,
  },
  { name: 'every master restarts', all: true, outageMs: 300 },
];

const cases = scenarios.flatMap((scenario) =>
  (['interest', 'broadcast'] as const).map((routing) => ({ ...scenario, routing })),
);

describe.each(cases)(
  'the Redis adapter ($routing routing) on a Redis Cluster when $name',
  ({ all, outageMs, routing }) => {
    it('keeps the server running, then resubscribes and rebuilds the lost keys from each node share', async () => {
      const cluster = redisCluster;
      if (!cluster) throw new Error('no Redis Cluster');
      await cluster.healthy();
      const prefix = `cluster-outage-${all ? 'all' : 'one'}-${outageMs}-${routing}:`;
      const broadcastChannel = `${prefix}broadcast`;
      // The master of the slot the channel 'news' travels on (the broadcast channel's, or the channel's own topic
      // with interest routing): its loss cuts every node off that sharded channel.
      const interested = routing === 'interest';
      const newsTopic = interested ? topicNames(broadcastChannel).channel('1', 'news') : broadcastChannel;
      const victim = await cluster.masterOf(newsTopic);
      const victims = all ? cluster.masters : [victim];
      const lostRoom = await presenceChannelOn(cluster, prefix, victim);
      const keptRoom = await presenceChannelOn(cluster, prefix, victim, true);
      const { a, b, aListener, bListener, logger, errors, resynced } = await startOutagePair(
        {
          clusterMode: true,
          rootNodes: cluster.rootNodes,
          keyPrefix: prefix,
          channel: broadcastChannel,
          routing,
        },
        nodes,
      );
      // With interest routing, a node hears the channel 'news' only as a subscriber of it.
      const news = interested ? [{ appId: '1', channel: 'news', count: 1 }] : [];
      if (interested)
        await Promise.all([a.setLocalSubscriptions('1', 'news', 1), b.setLocalSubscriptions('1', 'news', 1)]);
      const alice = { userId: 'alice', userInfo: { name: 'Alice' } };
      const bob = { userId: 'bob', userInfo: { name: 'Bob' } };
      const carol = { userId: 'carol', userInfo: { name: 'Carol' } };
      const join = (node: RedisClusterNode, channel: string, socketId: string, member: typeof alice) =>
        node.joinPresence({ appId: '1', channel, socketId, member, maxMembers: 10 });
      expect(await a.admitConnection('1', 10)).toBe(true);
      expect(await b.admitConnection('1', 10)).toBe(true);
      await join(a, lostRoom, '1.1', alice);
      await join(b, lostRoom, '2.1', bob);
      await join(a, keptRoom, '1.1', carol);
      await a.setLocalSubscriptions('1', lostRoom, 1);
      await a.setLocalSubscriptions('1', keptRoom, 1);
      await b.setLocalSubscriptions('1', lostRoom, 1);
      // What each server holds in memory, which the adapter writes back after the outage.
      aListener.state = {
        connections: [{ appId: '1', count: 1 }],
        subscriptions: [
          { appId: '1', channel: lostRoom, count: 1 },
          { appId: '1', channel: keptRoom, count: 1 },
          ...news,
        ],
        presence: [
          { appId: '1', channel: lostRoom, socketId: '1.1', member: alice },
          { appId: '1', channel: keptRoom, socketId: '1.1', member: carol },
        ],
      };
      bListener.state = {
        connections: [{ appId: '1', count: 1 }],
        subscriptions: [{ appId: '1', channel: lostRoom, count: 1 }, ...news],
        presence: [{ appId: '1', channel: lostRoom, socketId: '2.1', member: bob }],
      };
      const before = '{"event":"before","channel":"news","data":"{}"}';
      a.broadcast({ type: 'deliver', delivery: { appId: '1', channel: 'news', frame: before } });
      await until(() => expect(bListener.deliveries.map(({ frame }) => frame)).toContain(before));
      await sleep(3 * HEARTBEAT_MS);
      resynced.mockClear();

      await Promise.all(victims.map((master) => master.stop()));
      const frame = '{"event":"during","channel":"news","data":"{}"}';
      const startedAt = Date.now();
      for (let i = 0; i < 1000; i += 1) {
        a.broadcast({ type: 'deliver', delivery: { appId: '1', channel: 'news', frame } });
      }
      // Nothing is queued: every publish fails (and is counted) at once rather than waiting for the master.
      await until(
        () => {
          expect(errors.mock.calls.filter(([operation]) => operation === 'publish').length).toBe(1000);
        },
        { limitMs: 1000 },
      );
      expect(Date.now() - startedAt).toBeLessThan(1000);
      expect(logger.warn).toHaveBeenCalledWith(
        expect.stringContaining('redis unavailable'),
        expect.any(Object),
      );
      await expect(join(a, lostRoom, '1.2', alice)).rejects.toMatchObject({ code: 'unavailable' });
      // The surviving masters keep answering for their slots (until the cluster declares the dead one failed).
      if (!all) expect(await b.presenceUsers('1', keptRoom)).toEqual(['carol']);
      await sleep(outageMs);

      // Back on their ports with their nodes.conf and no data: the cluster heals, the keys of their slots are gone.
      await Promise.all(victims.map((master) => master.restart()));
      await cluster.healthy();
      await until(
        async () => {
          expect(resynced.mock.calls.length).toBeGreaterThanOrEqual(2);
          expect((await a.presenceUsers('1', lostRoom)).sort()).toEqual(['alice', 'bob']);
          expect(await b.channel('1', lostRoom)).toEqual({ subscriptionCount: 2, userCount: 2 });
          expect(await b.channel('1', keptRoom)).toEqual({ subscriptionCount: 1, userCount: 1 });
          expect(await b.connectionCount('1')).toBe(2);
        },
        { limitMs: 30_000 },
      );
      // Each re-join made its user new again in the emptied slots: the other node hears member_added.
      await until(
        () => {
          expect(bListener.deliveries).toContainEqual({
            appId: '1',
            channel: lostRoom,
            frame: encodeMemberAdded(lostRoom, 'alice', { name: 'Alice' }),
          });
          expect(aListener.deliveries).toContainEqual({
            appId: '1',
            channel: lostRoom,
            frame: encodeMemberAdded(lostRoom, 'bob', { name: 'Bob' }),
          });
        },
        { limitMs: 30_000 },
      );
      expect(bListener.deliveries.filter((delivery) => delivery.frame === frame)).toEqual([]);
      // Broadcasts flow both ways again over the restored sharded subscriptions.
      for (const [from, to, event] of [
        [a, bListener, 'after-a'],
        [b, aListener, 'after-b'],
      ] as const) {
        const after = `{"event":"${event}","channel":"news","data":"{}"}`;
        await until(
          () => {
            from.broadcast({ type: 'deliver', delivery: { appId: '1', channel: 'news', frame: after } });
            expect(to.deliveries.some((delivery) => delivery.frame === after)).toBe(true);
          },
          { limitMs: 30_000 },
        );
      }
      // Presence works again on the healed slots.
      const joined = await join(b, lostRoom, '2.2', carol);
      expect(joined).toMatchObject({ accepted: true, added: true });
      // The logs say what happened without a line per failed operation: each node warns of the outage (again
      // only if the cluster relapses while it heals, as masters leave the CLUSTERDOWN state one by one) and its
      // last word is that Redis is available again.
      const story = new Map<unknown, string[]>();
      for (const { level, message, fields } of logged(logger)) {
        if (level === 'warn' && message.startsWith('redis unavailable')) {
          story.set(fields?.nodeId, [...(story.get(fields?.nodeId) ?? []), 'down']);
        } else if (level === 'info' && message === 'redis available again') {
          story.set(fields?.nodeId, [...(story.get(fields?.nodeId) ?? []), 'up']);
        }
      }
      for (const id of ['a', 'b']) {
        const events = story.get(id) ?? [];
        expect(events[0], id).toBe('down');
        expect(events.at(-1), id).toBe('up');
        expect(events.length, id).toBeLessThanOrEqual(6);
      }
      await Promise.all([a.stop(), b.stop()]);
    });
  },
);
