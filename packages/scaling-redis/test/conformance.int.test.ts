import { encodeMemberRemoved } from '@herald/protocol-core';
import { sleep, until } from '@herald/test-kit';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { afterEach, describe, expect, it } from 'vitest';
import { redisRateLimitStore } from '../src/rate-limit-store.js';
import { publishRestart } from '../src/restart.js';
import { type Backend, memoryBackend, redisBackend, type TestCluster } from './cluster-nodes.js';
import { fenceChannelChanges, fenceDeliveries, fenceUserChanges } from './fences.js';
import { useRedisLayouts } from './redis-layouts.js';

// The same scenarios against the in-memory double of protocol-core and the Redis adapter (one Redis, and a
// three-master Redis Cluster): the server may rely on either behaving alike.

const { servers } = useRedisLayouts();

const backends: Backend[] = [
  memoryBackend,
  ...servers.flatMap(({ name, server }) => [
    redisBackend(name, server, 'interest'),
    redisBackend(name, server, 'broadcast'),
  ]),
];

const member = (userId: string, name = userId) => ({ userId, userInfo: { name } });
const sorted = (values: readonly string[]) => [...values].sort();

describe.each(backends)('cluster adapter on $name', (backend) => {
  let cluster: TestCluster;

  afterEach(async () => {
    await cluster.close();
  });

  const startThree = async () => {
    cluster = backend.cluster();
    return Promise.all([cluster.start('a'), cluster.start('b'), cluster.start('c')]);
  };

  it('delivers a broadcast exactly once on every other node, frame untouched and exclusion carried', async () => {
    const [a, b, c] = await startThree();
    // The nodes that hear a channel's traffic and a user's terminations hold subscribers and sockets of them.
    for (const node of [b, c]) {
      await node.adapter.setLocalSubscriptions('1', 'room', 1);
      node.adapter.setLocalUser?.('1', 'u9', true);
      await node.settled();
    }
    const frame = '{"event":"greet","channel":"room","data":"{\\"text\\":\\"hi\\\\n\\"}"}';
    a.adapter.broadcast({
      type: 'deliver',
      delivery: { appId: '1', channel: 'room', frame, excludeSocketId: '1.2' },
    });
    a.adapter.broadcast({ type: 'terminate', appId: '1', userId: 'u9' });
    await until(() => {
      expect(b.listener.terminations).toHaveLength(1);
      expect(c.listener.terminations).toHaveLength(1);
    });
    await fenceDeliveries(a, [b, c], { appId: '1', channel: 'room' });
    for (const other of [b, c]) {
      expect(other.listener.deliveries).toEqual([
        { appId: '1', channel: 'room', frame, excludeSocketId: '1.2' },
      ]);
      expect(other.listener.terminations).toEqual([{ appId: '1', userId: 'u9' }]);
    }
    expect(a.listener.deliveries).toEqual([]);
    expect(a.listener.terminations).toEqual([]);
  });

  it('tells a restart to every other node', async () => {
    const [a, b, c] = await startThree();
    a.adapter.broadcast({ type: 'restart' });
    await until(() => {
      expect([b.listener.restarts, c.listener.restarts]).toEqual([1, 1]);
    });
    expect(a.listener.restarts).toBe(0);
  });

  it('adds a user once and removes it once across nodes, whatever node each socket is on', async () => {
    const [a, b, c] = await startThree();
    const join = (node: typeof a, socketId: string, userId: string) =>
      node.adapter.joinPresence({
        appId: '1',
        channel: 'presence-room',
        socketId,
        member: member(userId),
        maxMembers: 10,
      });
    const first = await join(a, '1.1', 'u1');
    expect(first).toMatchObject({ accepted: true, added: true });
    expect(first.snapshot).toEqual({ ids: ['u1'], hash: { u1: { name: 'u1' } }, count: 1 });
    const second = await join(b, '2.1', 'u1');
    expect(second).toMatchObject({ accepted: true, added: false });
    expect(second.snapshot.count).toBe(1);
    const third = await join(c, '3.1', 'u2');
    expect(third).toMatchObject({ accepted: true, added: true });
    expect(sorted(third.snapshot.ids)).toEqual(['u1', 'u2']);
    expect(await join(c, '3.1', 'u2')).toMatchObject({ accepted: true, added: false });

    for (const node of [a, b, c]) {
      expect(sorted(await node.adapter.presenceUsers('1', 'presence-room'))).toEqual(['u1', 'u2']);
      // Every node reads every member's user_info, wherever the member joined.
      const members = await node.adapter.presenceMembers('1', 'presence-room');
      expect(members.hash).toEqual({ u1: { name: 'u1' }, u2: { name: 'u2' } });
      expect(members.count).toBe(2);
    }
    expect(await a.adapter.leavePresence('1', 'presence-room', '1.1')).toEqual({
      removed: false,
      userId: 'u1',
    });
    expect(await b.adapter.leavePresence('1', 'presence-room', '2.1')).toEqual({
      removed: true,
      userId: 'u1',
    });
    expect(await b.adapter.leavePresence('1', 'presence-room', '2.1')).toEqual({
      removed: false,
      userId: undefined,
    });
    expect(await a.adapter.leavePresence('1', 'presence-room', '3.1')).toEqual({
      removed: false,
      userId: undefined,
    });
    for (const node of [a, b, c]) {
      expect(await node.adapter.presenceUsers('1', 'presence-room')).toEqual(['u2']);
      expect(await node.adapter.presenceMembers('1', 'presence-room')).toEqual({
        ids: ['u2'],
        hash: { u2: { name: 'u2' } },
        count: 1,
      });
    }
  });

  it('refuses a new user in a full channel but lets a member open another socket', async () => {
    const [a, b] = await startThree();
    const join = (node: typeof a, socketId: string, userId: string) =>
      node.adapter.joinPresence({
        appId: '1',
        channel: 'presence-full',
        socketId,
        member: member(userId),
        maxMembers: 2,
      });
    await join(a, '1.1', 'u1');
    await join(b, '2.1', 'u2');
    const refused = await join(b, '2.2', 'u3');
    expect(refused.accepted).toBe(false);
    expect(refused.added).toBe(false);
    expect(refused.snapshot.count).toBe(2);
    expect(await join(b, '2.3', 'u1')).toMatchObject({ accepted: true, added: false });
    expect(sorted(await a.adapter.presenceUsers('1', 'presence-full'))).toEqual(['u1', 'u2']);
  });

  it('answers the same members and counts from every node', async () => {
    const [a, b, c] = await startThree();
    const joins = [
      [a, '1.1', 'u1'],
      [b, '2.1', 'u2'],
      [c, '3.1', 'u1'],
      [c, '3.2', 'u3'],
    ] as const;
    for (const [node, socketId, userId] of joins) {
      await node.adapter.joinPresence({
        appId: '1',
        channel: 'presence-same',
        socketId,
        member: member(userId, `name of ${userId}`),
        maxMembers: 100,
      });
    }
    a.adapter.setLocalSubscriptions('1', 'presence-same', 1);
    b.adapter.setLocalSubscriptions('1', 'presence-same', 1);
    c.adapter.setLocalSubscriptions('1', 'presence-same', 2);
    const last = await a.adapter.joinPresence({
      appId: '1',
      channel: 'presence-same',
      socketId: '1.1',
      member: member('u1'),
      maxMembers: 100,
    });
    expect(sorted(last.snapshot.ids)).toEqual(['u1', 'u2', 'u3']);
    expect(last.snapshot.hash).toEqual({
      u1: { name: 'name of u1' },
      u2: { name: 'name of u2' },
      u3: { name: 'name of u3' },
    });
    for (const node of [a, b, c]) {
      await until(async () => {
        expect(await node.adapter.channel('1', 'presence-same')).toEqual({
          subscriptionCount: 4,
          userCount: 3,
        });
      });
      expect(sorted(await node.adapter.presenceUsers('1', 'presence-same'))).toEqual(['u1', 'u2', 'u3']);
    }
  });

  it('admits connections up to the limit across nodes', async () => {
    const [a, b, c] = await startThree();
    expect(await a.adapter.admitConnection('1', 3)).toBe(true);
    expect(await b.adapter.admitConnection('1', 3)).toBe(true);
    expect(await c.adapter.admitConnection('1', 3)).toBe(true);
    expect(await a.adapter.admitConnection('1', 3)).toBe(false);
    expect(await b.adapter.admitConnection('2', 3)).toBe(true);
    b.adapter.releaseConnection('1');
    await until(async () => {
      expect(await a.adapter.connectionCount('1')).toBe(2);
    });
    expect(await c.adapter.admitConnection('1', 3)).toBe(true);
    for (const node of [a, b, c]) {
      expect(await node.adapter.connectionCount('1')).toBe(3);
      expect(await node.adapter.connectionCount('2')).toBe(1);
    }
  });

  it('merges channel counts of every node, filters by prefix and forgets a channel set to 0', async () => {
    const [a, b, c] = await startThree();
    a.adapter.setLocalSubscriptions('1', 'presence-lobby', 2);
    b.adapter.setLocalSubscriptions('1', 'presence-lobby', 1);
    a.adapter.setLocalSubscriptions('1', 'private-x', 3);
    b.adapter.setLocalSubscriptions('1', 'news', 1);
    c.adapter.setLocalSubscriptions('2', 'news', 5);
    await a.adapter.joinPresence({
      appId: '1',
      channel: 'presence-lobby',
      socketId: '1.1',
      member: member('u1'),
      maxMembers: 10,
    });
    const byName = (list: Array<{ name: string }>) => [...list].sort((x, y) => x.name.localeCompare(y.name));
    await until(async () => {
      expect(byName(await c.adapter.channels('1'))).toEqual([
        { name: 'news', subscriptionCount: 1 },
        { name: 'presence-lobby', subscriptionCount: 3, userCount: 1 },
        { name: 'private-x', subscriptionCount: 3 },
      ]);
    });
    expect(await b.adapter.channels('1', 'presence-')).toEqual([
      { name: 'presence-lobby', subscriptionCount: 3, userCount: 1 },
    ]);
    expect(await a.adapter.channel('2', 'news')).toEqual({ subscriptionCount: 5 });
    expect(await a.adapter.channel('1', 'nobody-here')).toEqual({ subscriptionCount: 0 });
    a.adapter.setLocalSubscriptions('1', 'private-x', 0);
    await until(async () => {
      expect(sorted((await c.adapter.channels('1')).map(({ name }) => name))).toEqual([
        'news',
        'presence-lobby',
      ]);
    });
  });

  it('reports a channel occupied once for the first subscriber anywhere and vacated once for the last', async () => {
    const [a, b, c] = await startThree();
    const all = () => [a, b, c].flatMap((node) => node.listener.changes);
    a.adapter.setLocalSubscriptions('1', 'room', 1);
    await until(() =>
      expect(a.listener.changes).toEqual([{ type: 'occupied', appId: '1', channel: 'room' }]),
    );
    b.adapter.setLocalSubscriptions('1', 'room', 1);
    a.adapter.setLocalSubscriptions('1', 'room', 3);
    b.adapter.setLocalSubscriptions('1', 'room', 0);
    await fenceChannelChanges('1', [a, b, c]);
    expect(all()).toHaveLength(1);
    a.adapter.setLocalSubscriptions('1', 'room', 0);
    await until(() =>
      expect(a.listener.changes.at(-1)).toEqual({ type: 'vacated', appId: '1', channel: 'room' }),
    );
    // A quick leave and rejoin ends occupied: the last change reported is the rejoin's.
    c.adapter.setLocalSubscriptions('1', 'room', 1);
    c.adapter.setLocalSubscriptions('1', 'room', 0);
    c.adapter.setLocalSubscriptions('1', 'room', 1);
    await until(() => expect(c.listener.changes).toHaveLength(3));
    expect(c.listener.changes.map((change) => change.type)).toEqual(['occupied', 'vacated', 'occupied']);
    expect(all().map((change) => change.type)).toEqual([
      'occupied',
      'vacated',
      'occupied',
      'vacated',
      'occupied',
    ]);
  });

  it('has the survivor that reaps a dead node report the channels only it held as vacated, once', async () => {
    const [a, b, c] = await startThree();
    a.adapter.setLocalSubscriptions('1', 'only-on-a', 2);
    a.adapter.setLocalSubscriptions('1', 'shared', 1);
    b.adapter.setLocalSubscriptions('1', 'shared', 1);
    // Each channel is reported occupied once, by whichever node's mark came first: 'shared' by a or by b.
    await until(() =>
      expect(
        [a, b, c]
          .flatMap((node) => node.listener.changes)
          .map((change) => `${change.type} ${change.channel}`)
          .sort(),
      ).toEqual(['occupied only-on-a', 'occupied shared']),
    );
    for (const node of [b, c]) node.listener.changes.length = 0;
    cluster.kill('a');
    await until(
      () => {
        const vacated = [b, c].flatMap((node) => node.listener.changes);
        expect(vacated).toEqual([{ type: 'vacated', appId: '1', channel: 'only-on-a' }]);
      },
      { limitMs: cluster.deadWindowMs + 15_000 },
    );
    // A second reaper would act on its own heartbeat timer, which no marker follows: a window stands in.
    await sleep(200);
    expect([b, c].flatMap((node) => node.listener.changes)).toHaveLength(1);
  });

  it('tells every node once when a user comes online anywhere and goes offline everywhere, also after a reap', async () => {
    const [a, b, c] = await startThree();
    a.adapter.setLocalUser?.('1', 'ada', true);
    b.adapter.setLocalUser?.('1', 'ada', true);
    await until(() => {
      for (const node of [a, b, c])
        expect(node.listener.users).toEqual([{ appId: '1', userId: 'ada', online: true }]);
    });
    expect(await c.adapter.onlineUsers?.('1', ['ada', 'bob'])).toEqual(['ada']);
    b.adapter.setLocalUser?.('1', 'ada', false);
    await fenceUserChanges('1', b, [a, b, c]);
    for (const node of [a, b, c]) expect(node.listener.users).toHaveLength(1);
    // The node holding ada's last socket dies: a survivor takes her offline, told to both survivors once.
    cluster.kill('a');
    await until(
      () => {
        for (const node of [b, c]) {
          expect(node.listener.users).toEqual([
            { appId: '1', userId: 'ada', online: true },
            { appId: '1', userId: 'ada', online: false },
          ]);
        }
      },
      { limitMs: cluster.deadWindowMs + 15_000 },
    );
    expect(await b.adapter.onlineUsers?.('1', ['ada'])).toEqual([]);
  });

  it('serves the last event of a cache channel from another node until it expires', async () => {
    const [a, b] = await startThree();
    const event = {
      event: 'price',
      data: '{"eur":1}',
      frame: '{"event":"price","channel":"cache-p","data":"{}"}',
    };
    a.adapter.storeCachedEvent('1', 'cache-p', event, 60_000);
    a.adapter.storeCachedEvent('1', 'cache-short', event, 150);
    await until(async () => {
      const cached = await b.adapter.cachedEvent('1', 'cache-p');
      expect(cached).toMatchObject(event);
      expect(cached?.ttlMs).toBeGreaterThan(50_000);
      expect(cached?.ttlMs).toBeLessThanOrEqual(60_000);
    });
    expect(await b.adapter.cachedEvent('1', 'cache-none')).toBeUndefined();
    await until(async () => {
      expect(await b.adapter.cachedEvent('1', 'cache-short')).toBeUndefined();
    });
  });

  it('has one survivor remove a dead node and its members, each member_removed once on every survivor', async () => {
    const [a, b, c] = await startThree();
    const join = (node: typeof a, socketId: string, userId: string) =>
      node.adapter.joinPresence({
        appId: '1',
        channel: 'presence-crash',
        socketId,
        member: member(userId),
        maxMembers: 10,
      });
    await join(a, '1.1', 'gone');
    await join(a, '1.2', 'stays');
    await join(b, '2.1', 'stays');
    await a.adapter.admitConnection('1', 10);
    await b.adapter.admitConnection('1', 10);
    a.adapter.setLocalSubscriptions('1', 'presence-crash', 2);
    await b.adapter.setLocalSubscriptions('1', 'presence-crash', 1);
    await c.adapter.setLocalSubscriptions('1', 'presence-crash', 1);
    await until(async () => {
      expect(await c.adapter.connectionCount('1')).toBe(2);
    });
    const killedAt = Date.now();
    cluster.kill('a');
    const removed = {
      appId: '1',
      channel: 'presence-crash',
      frame: encodeMemberRemoved('presence-crash', 'gone'),
    };
    await until(
      () => {
        expect(b.listener.deliveries).toContainEqual(removed);
        expect(c.listener.deliveries).toContainEqual(removed);
      },
      { limitMs: cluster.deadWindowMs + 2000 },
    );
    expect(Date.now() - killedAt).toBeLessThan(cluster.deadWindowMs + 1000);
    await sleep(cluster.deadWindowMs);
    expect(b.listener.deliveries).toEqual([removed]);
    expect(c.listener.deliveries).toEqual([removed]);
    expect(await c.adapter.presenceUsers('1', 'presence-crash')).toEqual(['stays']);
    expect(await c.adapter.connectionCount('1')).toBe(1);
    expect(await b.adapter.channel('1', 'presence-crash')).toEqual({ subscriptionCount: 2, userCount: 1 });
  });

  it('removes a stopped node share and tells the others about members it took away', async () => {
    const [a, b] = await startThree();
    await a.adapter.joinPresence({
      appId: '1',
      channel: 'presence-bye',
      socketId: '1.1',
      member: member('leaving'),
      maxMembers: 10,
    });
    await a.adapter.admitConnection('1', 10);
    a.adapter.setLocalSubscriptions('1', 'presence-bye', 1);
    await b.adapter.setLocalSubscriptions('1', 'presence-bye', 1);
    await a.adapter.stop();
    const frame = encodeMemberRemoved('presence-bye', 'leaving');
    await until(() => {
      expect(b.listener.deliveries).toEqual([{ appId: '1', channel: 'presence-bye', frame }]);
    });
    expect(await b.adapter.presenceUsers('1', 'presence-bye')).toEqual([]);
    expect(await b.adapter.connectionCount('1')).toBe(0);
    expect(await b.adapter.channels('1')).toEqual([
      { name: 'presence-bye', subscriptionCount: 1, userCount: 0 },
    ]);
  });
});

describe.each(servers)('Redis helpers on $name', ({ name, server }) => {
  it('publishRestart reaches every node of the cluster', async () => {
    const cluster = redisBackend(name, server).cluster();
    try {
      const nodes = await Promise.all([cluster.start('a'), cluster.start('b'), cluster.start('c')]);
      const reached = await publishRestart({ ...server(), channel: cluster.channel });
      expect(reached).toBe(3);
      await until(() => {
        expect(nodes.map(({ listener }) => listener.restarts)).toEqual([1, 1, 1]);
      });
    } finally {
      await cluster.close();
    }
  });

  it('redisRateLimitStore shares one budget between limiters of two nodes', async () => {
    const keyPrefix = `rl-${name.length}-${process.pid}:`;
    const first = redisRateLimitStore({ ...server(), keyPrefix });
    const second = redisRateLimitStore({ ...server(), keyPrefix });
    try {
      await Promise.all([first.ready(), second.ready()]);
      const budget = { keyPrefix: 'events', points: 3, duration: 10 };
      const here = first(budget);
      const there = second(budget);
      await here.consume('app-1');
      await here.consume('app-1');
      expect((await there.consume('app-1')).remainingPoints).toBe(0);
      const refused = await here.consume('app-1').catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(RateLimiterRes);
      expect((await there.consume('app-2')).remainingPoints).toBe(2);
      expect((await second({ ...budget, keyPrefix: 'reads' }).consume('app-1')).remainingPoints).toBe(2);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});
