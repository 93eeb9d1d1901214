import { randomBytes } from 'node:crypto';
import { sleep, until } from '@herald/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createRedisClusterNode,
  type RedisClusterNode,
  type RedisClusterOptions,
} from '../src/redis-cluster.js';
import { HEARTBEAT_MS, recordingListener } from './cluster-nodes.js';
import { fenceDeliveries } from './fences.js';
import { useRedisLayouts } from './redis-layouts.js';

// The adapter's topic bookkeeping, on one Redis and on a three-master Redis Cluster: who hears a channel, the
// promise of a node's first subscriber, exactly-once and order, and what a linger saves when channels churn.

const { servers } = useRedisLayouts();

describe.each(servers)('interest routing on $name', ({ server }) => {
  const started: RedisClusterNode[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((node) => node.stop()));
  });

  async function startNodes(count: number, options: Partial<RedisClusterOptions> = {}) {
    const tag = `ir-${randomBytes(4).toString('hex')}:`;
    return Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const adapter = createRedisClusterNode({
          ...server(),
          ...options,
          nodeId: `n${i}`,
          keyPrefix: tag,
          channel: `${tag}control`,
          heartbeatMs: HEARTBEAT_MS,
          deadAfterMs: 400,
          timeout: 2,
        });
        const listener = recordingListener();
        await adapter.start(listener);
        started.push(adapter);
        return { adapter, listener };
      }),
    );
  }

  it('confirms a first subscriber once the topic is acknowledged, shares that wait, and adds none after', async () => {
    const [a] = await startNodes(1);
    const first = a?.adapter.setLocalSubscriptions('1', 'room', 1);
    const second = a?.adapter.setLocalSubscriptions('1', 'room', 2);
    expect(first).toBeInstanceOf(Promise);
    expect(second).toBeInstanceOf(Promise);
    await Promise.all([first, second]);
    expect(a?.adapter.stats()).toMatchObject({ topics: 1, subscribes: 1, subscribeCommands: 1 });
    expect(a?.adapter.setLocalSubscriptions('1', 'room', 3)).toBeUndefined();
  });

  it('delivers a channel exactly once, in order and with the exclusion, to the nodes holding it and no other', async () => {
    const [a, b, c] = await startNodes(3);
    if (!a || !b || !c) throw new Error('three nodes');
    await b.adapter.setLocalSubscriptions('1', 'room', 1);
    const idle = c.adapter.stats().messagesReceived;
    const frames = Array.from({ length: 200 }, (_, i) => `{"event":"e","channel":"room","data":"${i}"}`);
    for (const frame of frames) {
      a.adapter.broadcast({
        type: 'deliver',
        delivery: { appId: '1', channel: 'room', frame, excludeSocketId: '9.9' },
      });
    }
    await until(() => expect(b.listener.deliveries).toHaveLength(frames.length));
    expect(b.listener.deliveries).toEqual(
      frames.map((frame) => ({ appId: '1', channel: 'room', frame, excludeSocketId: '9.9' })),
    );
    await fenceDeliveries(a, [b], { appId: '1', channel: 'room' });
    expect(b.listener.deliveries).toHaveLength(frames.length);
    expect(c.adapter.stats().messagesReceived).toBe(idle);
    expect(c.listener.deliveries).toEqual([]);
    expect(b.adapter.stats().bytesReceived).toBeGreaterThan(frames.join('').length);
  });

  it('sends a termination only to the nodes holding the user, and restarts to every node', async () => {
    const [a, b, c] = await startNodes(3);
    if (!a || !b || !c) throw new Error('three nodes');
    b.adapter.setLocalUser?.('1', 'mallory', true);
    await b.adapter.settled();
    a.adapter.broadcast({ type: 'terminate', appId: '1', userId: 'mallory' });
    a.adapter.broadcast({ type: 'restart' });
    await until(() => {
      expect(b.listener.terminations).toEqual([{ appId: '1', userId: 'mallory' }]);
      expect([b.listener.restarts, c.listener.restarts]).toEqual([1, 1]);
    });
    expect(c.listener.terminations).toEqual([]);
  });

  it('sends a termination to the nodes where the user is only present in a presence channel, until they leave', async () => {
    const [a, b, c] = await startNodes(3, { unsubscribeDelayMs: 0 });
    if (!a || !b || !c) throw new Error('three nodes');
    // Present as eve on b (no sign-in): terminating eve closes that socket too, so b needs eve's traffic.
    const joined = await b.adapter.joinPresence({
      appId: '1',
      channel: 'presence-room',
      socketId: '1.1',
      member: { userId: 'eve', userInfo: null },
      maxMembers: 100,
    });
    expect(joined.accepted).toBe(true);
    a.adapter.broadcast({ type: 'terminate', appId: '1', userId: 'eve' });
    await until(() => expect(b.listener.terminations).toEqual([{ appId: '1', userId: 'eve' }]));
    expect(c.listener.terminations).toEqual([]);

    // Gone from the channel: eve's topic is dropped, and a later termination no longer reaches b.
    await b.adapter.leavePresence('1', 'presence-room', '1.1');
    await until(() => expect(b.adapter.stats().topics).toBe(0));
    const received = b.adapter.stats().messagesReceived;
    a.adapter.broadcast({ type: 'terminate', appId: '1', userId: 'eve' });
    a.adapter.broadcast({ type: 'restart' });
    await until(() => expect(b.listener.restarts).toBe(1));
    expect(b.listener.terminations).toHaveLength(1);
    expect(b.adapter.stats().messagesReceived).toBe(received + 1);
  });

  it('keeps a topic through its linger when a subscriber comes back, and drops it after', async () => {
    const [a] = await startNodes(1, { unsubscribeDelayMs: 200 });
    if (!a) throw new Error('one node');
    await a.adapter.setLocalSubscriptions('1', 'room', 1);
    a.adapter.setLocalSubscriptions('1', 'room', 0);
    expect(a.adapter.setLocalSubscriptions('1', 'room', 1)).toBeUndefined();
    a.adapter.setLocalSubscriptions('1', 'room', 0);
    await until(() => expect(a.adapter.stats()).toMatchObject({ topics: 0, unsubscribes: 1 }));
    expect(a.adapter.stats()).toMatchObject({ subscribes: 1, unsubscribeCommands: 1 });
  });

  it('spares Redis the churn of channels coming and going within the linger (measured)', async () => {
    const churn = async (unsubscribeDelayMs: number) => {
      const [a] = await startNodes(1, { unsubscribeDelayMs });
      if (!a) throw new Error('one node');
      // 500 channels, each left and joined again 5 times by its only local subscriber.
      const channels = Array.from({ length: 500 }, (_, i) => `room-${i}`);
      for (let round = 0; round < 5; round++) {
        await Promise.all(channels.map((channel) => a.adapter.setLocalSubscriptions('1', channel, 1)));
        for (const channel of channels) a.adapter.setLocalSubscriptions('1', channel, 0);
        await sleep(20);
      }
      await until(
        () => {
          const { topics, subscribes, unsubscribes } = a.adapter.stats();
          expect([topics, unsubscribes]).toEqual([0, subscribes]);
        },
        { limitMs: 30_000 },
      );
      return a.adapter.stats();
    };
    const eager = await churn(0);
    const lingering = await churn(1000);
    // Figures for the README's trade-off (indicative: they depend on how fast the loop runs).
    console.info('interest routing churn, 500 channels x 5 rounds', {
      eager: pick(eager),
      lingering: pick(lingering),
    });
    expect(lingering.subscribes).toBe(500);
    expect(lingering.unsubscribes).toBe(500);
    expect(lingering.subscribes).toBeLessThan(eager.subscribes);
    const commands = (stats: typeof eager) => stats.subscribeCommands + stats.unsubscribeCommands;
    expect(commands(lingering)).toBeLessThan(commands(eager));
  }, 60_000);
});

function pick(stats: ReturnType<RedisClusterNode['stats']>) {
  const { subscribes, unsubscribes, subscribeCommands, unsubscribeCommands } = stats;
  return { subscribes, unsubscribes, subscribeCommands, unsubscribeCommands };
}
