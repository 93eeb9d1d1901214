import { signChannelAuth } from '@herald/protocol-core';
import { createMemoryCluster, type MemoryCluster } from '@herald/protocol-core/testing';
import { sleep, until } from '@herald/test-kit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RealtimeApp } from '../src/index.js';
import { APP, errorCode, publishMarker, RawClient, startServer } from './support.js';

type Started = Awaited<ReturnType<typeof startServer>>;

/**
 * The promise an interest-routing adapter answers while its node subscribes a topic, held until the test calls
 * `route` (as when Redis acknowledges the subscription).
 */
function heldRouting(): { routing: Promise<void>; route: () => void } {
  let route: () => void = () => {};
  const routing = new Promise<void>((resolve) => {
    route = resolve;
  });
  return { routing, route };
}

// Three servers joined by the in-memory double of the cluster port: the same rules the Redis adapter follows,
// without Redis, so the server's side of clustering is tested on its own.
describe('three nodes joined by a cluster adapter', () => {
  let hub: MemoryCluster;
  let nodes: Started[];

  async function boot(app: Partial<RealtimeApp> = {}) {
    hub = createMemoryCluster();
    nodes = await Promise.all(['a', 'b', 'c'].map((id) => startServer({ cluster: hub.node(id), app })));
  }

  async function client(node: number) {
    const started = nodes[node] as Started;
    const raw = await RawClient.connect(started.url());
    await raw.next('pusher:connection_established');
    return raw;
  }

  beforeEach(() => {
    nodes = [];
  });
  afterEach(async () => {
    await Promise.all(nodes.map((node) => node.stop()));
  });

  it('delivers a publish on one node exactly once to subscribers on every node, honouring socket_id', async () => {
    await boot();
    const [a, b, c] = await Promise.all([client(0), client(1), client(2)]);
    for (const socket of [a, b, c]) await socket.subscribe('news');
    nodes[0]?.server.publish('app-1', {
      channels: ['news'],
      event: 'posted',
      data: '{"n":1}',
      excludeSocketId: b.socketId,
    });
    expect((await a.next('posted')).rawData).toBe('{"n":1}');
    expect((await c.next('posted')).rawData).toBe('{"n":1}');
    await publishMarker((nodes[0] as Started).server, 'news', [a, b, c]);
    expect(b.frames.filter((frame) => frame.event === 'posted')).toHaveLength(0);
    expect(a.frames.filter((frame) => frame.event === 'posted')).toHaveLength(1);
    expect(c.frames.filter((frame) => frame.event === 'posted')).toHaveLength(1);
  });

  it('relays client events to subscribers on other nodes, never back to the sender', async () => {
    await boot();
    const [a, b] = await Promise.all([client(0), client(1)]);
    await a.subscribe('private-chat');
    await b.subscribe('private-chat');
    a.send({ event: 'client-typing', channel: 'private-chat', data: { who: 'a' } });
    expect((await b.next('client-typing')).data).toEqual({ who: 'a' });
    await publishMarker((nodes[0] as Started).server, 'private-chat', [a]);
    expect(a.frames.some((frame) => frame.event === 'client-typing')).toBe(false);
  });

  it('keeps one presence roster across nodes: one member_added, identical lists, one member_removed', async () => {
    await boot();
    const watcher = await client(0);
    await watcher.subscribe('presence-room', { user_id: 'w' });
    const tab1 = await client(1);
    const tab2 = await client(2);
    const joined1 = await tab1.subscribe('presence-room', { user_id: 'u1', user_info: { name: 'Ada' } });
    const joined2 = await tab2.subscribe('presence-room', { user_id: 'u1', user_info: { name: 'Ada' } });
    expect((joined2.data as { presence: { count: number } }).presence.count).toBe(2);
    expect((joined1.data as { presence: { ids: string[] } }).presence.ids.sort()).toEqual(['u1', 'w']);
    await watcher.next('pusher_internal:member_added');
    await publishMarker((nodes[2] as Started).server, 'presence-room', [watcher]);
    expect(watcher.frames.filter((frame) => frame.event === 'pusher_internal:member_added')).toHaveLength(1);
    for (const node of nodes)
      expect((await node.server.presenceUsers('app-1', 'presence-room')).sort()).toEqual(['u1', 'w']);
    expect(await nodes[0]?.server.channel('app-1', 'presence-room')).toMatchObject({
      userCount: 2,
      subscriptionCount: 3,
    });

    tab1.close();
    // Once node b has handled the close, a member_removed for it would come before a marker sent through b.
    await until(
      async () => (await nodes[1]?.server.channel('app-1', 'presence-room'))?.subscriptionCount === 2,
    );
    await publishMarker((nodes[1] as Started).server, 'presence-room', [watcher]);
    expect(watcher.frames.some((frame) => frame.event === 'pusher_internal:member_removed')).toBe(false);
    tab2.close();
    const removed = await watcher.next('pusher_internal:member_removed');
    expect(removed.data).toEqual({ user_id: 'u1' });
  });

  it('enforces max_connections across the cluster', async () => {
    await boot({ maxConnections: 2 });
    await client(0);
    await client(1);
    const third = await RawClient.connect((nodes[2] as Started).url());
    const refused = await third.next('pusher:error');
    expect(errorCode(refused)).toBe(4004);
    expect((await third.closed).code).toBe(4004);
    expect(await nodes[2]?.server.connectionCount('app-1')).toBe(2);
  });

  it('terminates a user signed in on another node', async () => {
    await boot();
    const target = await client(2);
    await target.signin({ id: 'bad' });
    nodes[0]?.server.terminateUser('app-1', 'bad');
    expect((await target.closed).code).toBe(4009);
  });

  it("tells a watcher once that a user is online when the user's sign-in elsewhere reaches this node after the watchlist's answer", async () => {
    hub = createMemoryCluster();
    // Node a receives 'user' messages late, held here, as a slow Redis delivers them: the cluster's state already
    // says who is online when a watcher signs in, but the message saying so arrives after.
    const adapter = hub.node('a');
    const held: Array<() => void> = [];
    const start = adapter.start.bind(adapter);
    adapter.start = (listener) =>
      start({
        ...listener,
        userChanged: (appId, userId, online) => {
          held.push(() => listener.userChanged?.(appId, userId, online));
        },
      });
    nodes = [await startServer({ cluster: adapter }), await startServer({ cluster: hub.node('b') })];
    const watchlistEvents = (socket: RawClient) =>
      socket.frames
        .filter((frame) => frame.event === 'pusher_internal:watchlist_events')
        .flatMap((frame) => (frame.data as { events: unknown[] }).events);
    const early = await client(1);
    await early.signin({ id: 'early' });
    await until(() => held.length === 1, "early's sign-in held on its way to node a");
    const watcher = await client(0);
    await watcher.signin({ id: 'watcher', watchlist: ['early', 'late'] });
    await until(() => watchlistEvents(watcher).length === 1, 'the answer to the watchlist');
    for (const release of held.splice(0)) release();
    // The marker: a later sign-in on node b, whose message node a handles after the released one.
    const late = await client(1);
    await late.signin({ id: 'late' });
    await until(() => held.length === 1, "late's sign-in held on its way to node a");
    for (const release of held.splice(0)) release();
    await until(() => watchlistEvents(watcher).length >= 2, "late's online");
    expect(watchlistEvents(watcher)).toEqual([
      { name: 'online', user_ids: ['early'] },
      { name: 'online', user_ids: ['late'] },
    ]);
  });

  it('confirms every socket of a user that signs in while the node is still routing the user here', async () => {
    hub = createMemoryCluster();
    // Interest routing as the Redis adapter answers it: the first socket's sign-in gets a promise that settles
    // once the node receives the user's traffic (held here until the test lets it go).
    const { routing, route } = heldRouting();
    const adapter = hub.node('a');
    const setLocalUser = adapter.setLocalUser?.bind(adapter);
    adapter.setLocalUser = (appId, userId, signedIn) => {
      setLocalUser?.(appId, userId, signedIn);
      return signedIn ? routing : undefined;
    };
    nodes = [await startServer({ cluster: adapter })];
    const [first, second] = [await client(0), await client(0)];
    const answered: string[] = [];
    const answers = [first, second].map((socket, i) =>
      socket.signin({ id: 'ada' }).then((frame) => {
        answered.push(`socket ${i}`);
        return frame;
      }),
    );
    // Both sign-ins handled (each socket answers a ping in order), and neither confirmed before the node receives
    // the user's traffic: a terminate sent after a confirmation could otherwise miss that socket.
    await first.roundTrip();
    await second.roundTrip();
    // A server that did not wait for the routing would confirm after some other promise, possibly after the pong: a
    // short window stands in for a marker here.
    await sleep(100);
    expect(answered).toEqual([]);
    route();
    for (const answer of await Promise.all(answers)) expect(answer.event).toBe('pusher:signin_success');
  });

  it('confirms a subscription once however the client retries or resubscribes while its routing is pending', async () => {
    hub = createMemoryCluster();
    const { routing, route } = heldRouting();
    const adapter = hub.node('a');
    const setLocalSubscriptions = adapter.setLocalSubscriptions.bind(adapter);
    adapter.setLocalSubscriptions = (appId, channel, count) => {
      setLocalSubscriptions(appId, channel, count);
      return count > 0 ? routing : undefined;
    };
    nodes = [await startServer({ cluster: adapter })];
    const socket = await client(0);
    const subscribe = () => socket.send({ event: 'pusher:subscribe', data: { channel: 'news' } });
    subscribe();
    subscribe(); // A retry: answered by the pending confirmation, not at once.
    socket.send({ event: 'pusher:unsubscribe', data: { channel: 'news' } });
    subscribe(); // Again while the first one's routing is still pending.
    await socket.roundTrip();
    const confirmations = () =>
      socket.frames.filter((frame) => frame.event === 'pusher_internal:subscription_succeeded');
    expect(confirmations()).toHaveLength(0);
    route();
    await socket.next('pusher_internal:subscription_succeeded');
    await socket.roundTrip(); // A second confirmation would come before the pong.
    expect(confirmations()).toHaveLength(1);
  });

  it('survives a presence join the cluster refuses before the channel is routed, answering from local state', async () => {
    hub = createMemoryCluster();
    const { routing, route } = heldRouting();
    const adapter = hub.node('a');
    adapter.setLocalSubscriptions = (_appId, _channel, count) => (count > 0 ? routing : undefined);
    // Redis unreachable for the roster (its shard is down) while the channel's topic is still being subscribed.
    adapter.joinPresence = () => Promise.reject(new Error('the roster shard is down'));
    nodes = [await startServer({ cluster: adapter })];
    const socket = await client(0);
    socket.send({
      event: 'pusher:subscribe',
      data: {
        channel: 'presence-room',
        auth: signChannelAuth(APP, {
          socketId: socket.socketId,
          channel: 'presence-room',
          channelData: '{"user_id":"u1"}',
        }),
        channel_data: '{"user_id":"u1"}',
      },
    });
    await socket.roundTrip();
    await sleep(50); // The join has failed by now; the routing has not settled.
    route();
    const confirmed = await socket.next('pusher_internal:subscription_succeeded');
    expect(confirmed.data).toMatchObject({ presence: { ids: ['u1'], count: 1 } });
    expect(await socket.isServed()).toBe(true);
  });

  it('serves a cache channel’s last event from another node', async () => {
    await boot();
    nodes[0]?.server.publish('app-1', { channels: ['cache-price'], event: 'price', data: '{"eur":2}' });
    const late = await client(1);
    await late.subscribe('cache-price');
    expect((await late.next('price')).data).toEqual({ eur: 2 });
  });

  it('lists channels with counts merged from every node', async () => {
    await boot();
    const [a, b] = await Promise.all([client(0), client(1)]);
    await a.subscribe('orders');
    await b.subscribe('orders');
    await b.subscribe('presence-x', { user_id: '7' });
    await until(async () => {
      const list = await nodes[2]?.server.channels('app-1');
      expect(list?.sort((x, y) => x.name.localeCompare(y.name))).toEqual([
        { name: 'orders', subscriptionCount: 2 },
        { name: 'presence-x', subscriptionCount: 1, userCount: 1 },
      ]);
    });
  });

  it('sends each member_removed once when a node dies without closing', async () => {
    await boot();
    const watcher = await client(0);
    await watcher.subscribe('presence-room', { user_id: 'w' });
    const doomed = await client(2);
    await doomed.subscribe('presence-room', { user_id: 'ghost' });
    await watcher.next('pusher_internal:member_added');
    hub.kill('c');
    expect((await watcher.next('pusher_internal:member_removed')).data).toEqual({ user_id: 'ghost' });
    await publishMarker((nodes[1] as Started).server, 'presence-room', [watcher]);
    expect(watcher.frames.filter((frame) => frame.event === 'pusher_internal:member_removed')).toHaveLength(
      1,
    );
  });

  it('closes sockets with 4200 on every node when a restart is requested', async () => {
    await boot();
    const [a, c] = await Promise.all([client(0), client(2)]);
    hub.node('a').broadcast({ type: 'restart' });
    // The double delivers to the other nodes, like the Redis channel; node a asked, so it drops its own too.
    nodes[0]?.server.dropConnections();
    expect((await a.closed).code).toBe(4200);
    expect((await c.closed).code).toBe(4200);
  });
});
