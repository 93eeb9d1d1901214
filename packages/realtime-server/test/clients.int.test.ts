import { sleep, until } from '@herald/test-kit';
import Echo from 'laravel-echo';
import Pusher from 'pusher';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  connected,
  once,
  PusherClient,
  publishMarkerTo,
  pusherJs,
  RawClient,
  serverSdk,
  startServer,
} from './support.js';

type Started = Awaited<ReturnType<typeof startServer>>;

describe('pusher-js and laravel-echo against the server', () => {
  let started: Started;
  const clients: PusherClient[] = [];
  const track = (client: PusherClient) => {
    clients.push(client);
    return client;
  };

  beforeEach(async () => {
    started = await startServer();
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await started.stop();
  });

  it('connects and reports the socket id the server assigned', async () => {
    const client = track(pusherJs(started.port));
    await connected(client);
    expect(client.connection.socket_id).toMatch(/^\d+\.\d+$/);
    expect(await started.server.connectionCount('app-1')).toBe(1);
  });

  it('delivers a published event on a public channel, data intact', async () => {
    const client = track(pusherJs(started.port));
    const channel = client.subscribe('news');
    await once((done) => channel.bind('pusher:subscription_succeeded', done));
    const received = once<unknown>((done) => channel.bind('article.published', done));
    started.server.publish('app-1', {
      channels: ['news'],
      event: 'article.published',
      data: JSON.stringify({ title: 'Zürich "quotes" \\ 🚀', n: 1 }),
    });
    expect(await received).toEqual({ title: 'Zürich "quotes" \\ 🚀', n: 1 });
  });

  it('subscribes to a private channel with an SDK-signed auth and receives events', async () => {
    const client = track(pusherJs(started.port));
    const channel = client.subscribe('private-orders.42');
    await once((done) => channel.bind('pusher:subscription_succeeded', done));
    const received = once<unknown>((done) => channel.bind('shipped', done));
    started.server.publish('app-1', { channels: ['private-orders.42'], event: 'shipped', data: '{"id":42}' });
    expect(await received).toEqual({ id: 42 });
  });

  it('refuses a private channel signed with another secret and keeps the connection', async () => {
    const foreign = serverSdk(started.port, { id: 'app-1', key: 'app-key', secret: 'not-the-secret' });
    const client = track(pusherJs(started.port, { sdk: foreign }));
    const channel = client.subscribe('private-secret');
    const error = await once<{ type: string; status: number }>((done) =>
      channel.bind('pusher:subscription_error', done),
    );
    expect(error).toMatchObject({ type: 'AuthError', status: 401 });
    // A later subscription answered on the same socket: a close for the refusal would have come first.
    await once((done) => client.subscribe('fence').bind('pusher:subscription_succeeded', done));
    expect(client.connection.state).toBe('connected');
  });

  it('excludes the socket named in socket_id from a trigger', async () => {
    const sender = track(pusherJs(started.port));
    const other = track(pusherJs(started.port));
    const a = sender.subscribe('room');
    const b = other.subscribe('room');
    await Promise.all([
      once((done) => a.bind('pusher:subscription_succeeded', done)),
      once((done) => b.bind('pusher:subscription_succeeded', done)),
    ]);
    const seenBySender: unknown[] = [];
    a.bind('said', (data: unknown) => seenBySender.push(data));
    const toOther = once<unknown>((done) => b.bind('said', done));
    started.server.publish('app-1', {
      channels: ['room'],
      event: 'said',
      data: '"hi"',
      excludeSocketId: sender.connection.socket_id,
    });
    expect(await toOther).toBe('hi');
    await publishMarkerTo(started.server, 'room', [a]);
    expect(seenBySender).toEqual([]);
  });

  it('sends client events on a private channel to others only', async () => {
    const alice = track(pusherJs(started.port));
    const bob = track(pusherJs(started.port));
    const a = alice.subscribe('private-chat');
    const b = bob.subscribe('private-chat');
    await Promise.all([
      once((done) => a.bind('pusher:subscription_succeeded', done)),
      once((done) => b.bind('pusher:subscription_succeeded', done)),
    ]);
    const echoed: unknown[] = [];
    a.bind('client-typing', (data: unknown) => echoed.push(data));
    const atBob = once<unknown>((done) => b.bind('client-typing', done));
    expect(a.trigger('client-typing', { who: 'alice' })).toBe(true);
    expect(await atBob).toEqual({ who: 'alice' });
    await publishMarkerTo(started.server, 'private-chat', [a]);
    expect(echoed).toEqual([]);
  });

  it('signs in a user and delivers events on #server-to-user-{id}', async () => {
    const client = track(pusherJs(started.port, { user: { id: 'u-7', info: { name: 'Grace' } } }));
    await connected(client);
    const received = once<unknown>((done) => client.user.bind('invoice.ready', done));
    client.signin();
    await client.user.signinDonePromise;
    // Wait until the server has the personal channel subscribed.
    await until(
      async () => (await started.server.channel('app-1', '#server-to-user-u-7')).subscriptionCount > 0,
      'the personal channel subscribed',
    );
    started.server.publish('app-1', {
      channels: ['#server-to-user-u-7'],
      event: 'invoice.ready',
      data: '{"total":12}',
    });
    expect(await received).toEqual({ total: 12 });
  });

  it('replays the last event of a cache channel and reports a miss when empty', async () => {
    const first = track(pusherJs(started.port));
    const empty = first.subscribe('cache-prices');
    await once((done) => empty.bind('pusher:cache_miss', done));
    started.server.publish('app-1', { channels: ['cache-prices'], event: 'price', data: '{"eur":3}' });
    const late = track(pusherJs(started.port));
    const channel = late.subscribe('cache-prices');
    expect(await once<unknown>((done) => channel.bind('price', done))).toEqual({ eur: 3 });
  });

  it('authorizes an encrypted channel with the SDK shared secret and refuses client events on it', async () => {
    const encryptingSdk = new Pusher({
      appId: 'app-1',
      key: 'app-key',
      secret: 'app-secret',
      host: '127.0.0.1',
      encryptionMasterKeyBase64: Buffer.alloc(32, 7).toString('base64'),
    });
    const client = track(pusherJs(started.port, { sdk: encryptingSdk }));
    const channel = client.subscribe('private-encrypted-vault');
    await once((done) => channel.bind('pusher:subscription_succeeded', done));
    expect((await started.server.channel('app-1', 'private-encrypted-vault')).subscriptionCount).toBe(1);
    // pusher-js refuses client events on encrypted channels itself; the server refusal is tested with raw frames.
    expect(() => channel.trigger('client-x', {})).toThrow(/not currently supported for encrypted channels/);
  });

  it('drives presence through laravel-echo: here, joining, leaving and whispers', async () => {
    const echoFor = (id: string, name: string) => {
      const pusher = track(pusherJs(started.port, { user: { id, info: { name } } }));
      return new Echo({ broadcaster: 'pusher', key: 'app-key', client: pusher });
    };
    const ada = echoFor('1', 'Ada');
    const here = once<Array<{ name: string }>>((done) => {
      ada.join('room.1').here(done);
    });
    expect(await here).toEqual([{ name: 'Ada' }]);

    const joined = once<{ name: string }>((done) => {
      ada.join('room.1').joining(done);
    });
    const grace = echoFor('2', 'Grace');
    const graceHere = once<Array<{ name: string }>>((done) => {
      grace.join('room.1').here(done);
    });
    expect(await joined).toEqual({ name: 'Grace' });
    expect((await graceHere).map((member) => member.name).sort()).toEqual(['Ada', 'Grace']);

    const whisper = once<unknown>((done) => {
      grace.join('room.1').listenForWhisper('typing', done);
    });
    await sleep(50);
    ada.join('room.1').whisper('typing', { by: 'Ada' });
    expect(await whisper).toEqual({ by: 'Ada' });

    const event = once<unknown>((done) => {
      grace.join('room.1').listen('.moved', done);
    });
    started.server.publish('app-1', {
      channels: ['presence-room.1'],
      event: 'moved',
      data: '{"to":"kitchen"}',
    });
    expect(await event).toEqual({ to: 'kitchen' });

    const left = once<{ name: string }>((done) => {
      ada.join('room.1').leaving(done);
    });
    grace.leave('room.1');
    expect(await left).toEqual({ name: 'Grace' });
    expect(await started.server.presenceUsers('app-1', 'presence-room.1')).toEqual(['1']);
  });

  it('counts a user with two tabs as one presence member', async () => {
    const watcher = track(pusherJs(started.port, { user: { id: 'w' } }));
    const watch = watcher.subscribe('presence-lobby');
    await once((done) => watch.bind('pusher:subscription_succeeded', done));
    const added: Array<{ id: string }> = [];
    const removed: Array<{ id: string }> = [];
    watch.bind('pusher:member_added', (member: { id: string }) => added.push(member));
    watch.bind('pusher:member_removed', (member: { id: string }) => removed.push(member));

    const tab1 = track(pusherJs(started.port, { user: { id: '9' } }));
    const tab2 = track(pusherJs(started.port, { user: { id: '9' } }));
    const c1 = tab1.subscribe('presence-lobby');
    await once((done) => c1.bind('pusher:subscription_succeeded', done));
    const c2 = tab2.subscribe('presence-lobby');
    await once((done) => c2.bind('pusher:subscription_succeeded', done));
    await publishMarkerTo(started.server, 'presence-lobby', [watch]);
    expect(added.map((member) => member.id)).toEqual(['9']);
    expect(await started.server.channel('app-1', 'presence-lobby')).toMatchObject({
      userCount: 2,
      subscriptionCount: 3,
    });

    tab1.disconnect();
    // The server has handled the close once the socket no longer counts; a member_removed would precede the marker.
    await until(
      async () => (await started.server.channel('app-1', 'presence-lobby')).subscriptionCount === 2,
    );
    await publishMarkerTo(started.server, 'presence-lobby', [watch]);
    expect(removed).toEqual([]);
    tab2.disconnect();
    await until(() => removed.length > 0, 'member_removed');
    await publishMarkerTo(started.server, 'presence-lobby', [watch]);
    expect(removed.map((member) => member.id)).toEqual(['9']);
  });

  it('uses the path prefix for sockets when one is configured', async () => {
    const prefixed = await startServer({ path: '/realtime' });
    try {
      const client = new PusherClient('app-key', {
        cluster: 'mt1',
        wsHost: '127.0.0.1',
        wsPort: prefixed.port,
        wsPath: '/realtime',
        forceTLS: false,
        enabledTransports: ['ws'],
      });
      track(client);
      await connected(client);
      expect(await prefixed.server.connectionCount('app-1')).toBe(1);
    } finally {
      await prefixed.stop();
    }
  });
});

describe("pusher-js client events under accept_client_events_from 'members'", () => {
  let started: Started;
  const clients: PusherClient[] = [];

  beforeEach(async () => {
    started = await startServer({ app: { acceptClientEventsFrom: 'members' } });
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await started.stop();
  });

  it('relays a whisper on a private channel from a subscriber with no user identity', async () => {
    const alice = pusherJs(started.port);
    const bob = pusherJs(started.port);
    clients.push(alice, bob);
    const a = alice.subscribe('private-typing');
    const b = bob.subscribe('private-typing');
    await Promise.all([
      once((done) => a.bind('pusher:subscription_succeeded', done)),
      once((done) => b.bind('pusher:subscription_succeeded', done)),
    ]);
    const atBob = once<unknown>((done) => b.bind('client-typing', done));
    expect(a.trigger('client-typing', { who: 'alice' })).toBe(true);
    expect(await atBob).toEqual({ who: 'alice' });
  });

  it('refuses a client event from a socket not subscribed to the channel with 4301, keeping it connected', async () => {
    const outsider = pusherJs(started.port);
    const bob = pusherJs(started.port);
    clients.push(outsider, bob);
    const b = bob.subscribe('private-typing');
    await Promise.all([once((done) => b.bind('pusher:subscription_succeeded', done)), connected(outsider)]);
    const received: unknown[] = [];
    b.bind('client-typing', (data: unknown) => received.push(data));
    const refused = once<{ data?: { code?: number } }>((done) => outsider.connection.bind('error', done));
    outsider.send_event('client-typing', { who: 'outsider' }, 'private-typing');
    expect((await refused).data?.code).toBe(4301);
    expect(outsider.connection.state).toBe('connected');
    // The refusal went back before anything could reach bob; a server event after it arrives alone.
    const marker = once<unknown>((done) => b.bind('marker', done));
    started.server.publish('app-1', { channels: ['private-typing'], event: 'marker', data: '{}' });
    await marker;
    expect(received).toEqual([]);
  });
});

describe('subscription counts', () => {
  let started: Started;
  const clients: PusherClient[] = [];

  beforeEach(async () => {
    started = await startServer({ app: { enableSubscriptionCount: true, subscriptionCountIntervalMs: 200 } });
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await started.stop();
  });

  it('tells pusher-js subscribers the channel count through pusher:subscription_count', async () => {
    const first = pusherJs(started.port);
    const second = pusherJs(started.port);
    clients.push(first, second);
    const channel = first.subscribe('news');
    const counts: number[] = [];
    channel.bind('pusher:subscription_count', (data: { subscription_count: number }) =>
      counts.push(data.subscription_count),
    );
    await once((done) => channel.bind('pusher:subscription_succeeded', done));
    await once((done) => second.subscribe('news').bind('pusher:subscription_succeeded', done));
    await until(() => counts.at(-1) === 2, { what: 'a subscription_count of 2', limitMs: 20_000 });
    expect(counts.at(-1)).toBe(2);
    expect((channel as unknown as { subscriptionCount: number }).subscriptionCount).toBe(2);
    second.unsubscribe('news');
    await until(() => counts.at(-1) === 1, { what: 'a subscription_count of 1', limitMs: 20_000 });
    expect(counts.at(-1)).toBe(1);
  });

  it('sends at most one update per interval under a burst of joins, the last one with the final count', async () => {
    const watcher = await RawClient.connect(started.url());
    await watcher.subscribe('busy');
    const joiners = await Promise.all(Array.from({ length: 30 }, () => RawClient.connect(started.url())));
    const began = Date.now();
    await Promise.all(joiners.map((joiner) => joiner.subscribe('busy')));
    const updates = () =>
      watcher.frames.filter((frame) => frame.event === 'pusher_internal:subscription_count');
    await until(
      () =>
        (updates().at(-1)?.data as { subscription_count?: number } | undefined)?.subscription_count === 31,
      { what: 'the final count', limitMs: 20_000 },
    );
    // Time, not a frame, is what this waits for: updates are held to one per 200 ms interval.
    await sleep(500);
    const elapsed = Date.now() - began;
    // One per 200 ms interval at most (plus the first), however many joined.
    expect(updates().length).toBeLessThanOrEqual(Math.ceil(elapsed / 200) + 1);
    expect(updates().length).toBeLessThan(30);
    for (const client of [watcher, ...joiners]) client.close();
  });

  it('never sends counts on presence channels, nor for apps that did not ask for them', async () => {
    const watcher = await RawClient.connect(started.url());
    await watcher.subscribe('presence-room', { user_id: 'a' });
    const other = await RawClient.connect(started.url());
    await other.subscribe('presence-room', { user_id: 'b' });
    const plain = await startServer();
    const elsewhere = await RawClient.connect(plain.url());
    await elsewhere.subscribe('news');
    const alsoElsewhere = await RawClient.connect(plain.url());
    await alsoElsewhere.subscribe('news');
    // Counts go out on a 200 ms timer, not in answer to a frame: a marker cannot fence them, an interval can.
    await sleep(600);
    for (const client of [watcher, elsewhere]) {
      expect(client.frames.some((frame) => frame.event === 'pusher_internal:subscription_count')).toBe(false);
    }
    for (const client of [watcher, other, elsewhere, alsoElsewhere]) client.close();
    await plain.stop();
  });
});

describe('watchlists', () => {
  let started: Started;
  const clients: PusherClient[] = [];
  type WatchEvent = { name: string; user_ids: string[] };

  beforeEach(async () => {
    started = await startServer();
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await started.stop();
  });

  async function signedIn(
    id: string,
    watchlist?: string[],
  ): Promise<{ client: PusherClient; events: WatchEvent[] }> {
    const client = pusherJs(started.port, { user: { id, info: watchlist ? { watchlist } : {} } });
    clients.push(client);
    const events: WatchEvent[] = [];
    client.user.watchlist.bind('online', (event: WatchEvent) => events.push(event));
    client.user.watchlist.bind('offline', (event: WatchEvent) => events.push(event));
    await connected(client);
    client.signin();
    await client.user.signinDonePromise;
    return { client, events };
  }

  it('tells pusher-js which watched users are online at sign-in, then as they come and go', async () => {
    await signedIn('bob');
    const ada = await signedIn('ada', ['bob', 'cy', 'dee']);
    await until(() => ada.events.length >= 1);
    expect(ada.events[0]).toEqual({ name: 'online', user_ids: ['bob'] });

    const cy = await signedIn('cy');
    await until(() => ada.events.length >= 2);
    expect(ada.events[1]).toEqual({ name: 'online', user_ids: ['cy'] });
    // A second tab of cy changes nothing; cy is offline only when the last tab goes.
    const cyTab = await signedIn('cy');
    cy.client.disconnect();
    // Once the server has handled the close, an offline event for ada would come before a marker sent to her.
    await until(
      async () => (await started.server.channel('app-1', '#server-to-user-cy')).subscriptionCount === 1,
    );
    await publishMarkerTo(started.server, '#server-to-user-ada', [ada.client.user]);
    expect(ada.events).toHaveLength(2);
    cyTab.client.disconnect();
    await until(() => ada.events.length >= 3);
    expect(ada.events[2]).toEqual({ name: 'offline', user_ids: ['cy'] });
  });

  it('refuses a watchlist over 100 user ids with a pusher:error, keeping the socket', async () => {
    const client = await RawClient.connect(started.url());
    const watchlist = Array.from({ length: 101 }, (_, i) => `u${i}`);
    const answer = await client.signin({ id: 'big', watchlist });
    expect(answer.event).toBe('pusher:error');
    expect(answer.data).toMatchObject({ code: 4302 });
    expect(String((answer.data as { message: string }).message)).toContain('at most 100');
    expect(await client.isServed()).toBe(true);
    client.close();
  });
});
