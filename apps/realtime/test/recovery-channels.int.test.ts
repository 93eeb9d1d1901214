import { randomBytes } from 'node:crypto';
import { silentLogger } from '@herald/realtime-server';
import { enableRecovery } from '@herald/recovery';
import { fence, startTcpProxy, type TcpProxy, until } from '@herald/test-kit';
import Pusher from 'pusher';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { configSchema } from '../src/config-schema.js';
import { type RunningRealtime, startRealtime } from '../src/start.js';
import { type PusherClient, pusherJsClient } from './pusher-client.js';

// Issue 26, part 3 on one node: the REST history route read with the `pusher` SDK's signed `get`, and recovery on
// presence and encrypted channels (authorised again on resubscribe; encrypted history holds the publisher's
// ciphertext). One server for the file; each test uses channels of its own.

const APP = { id: 'shop', key: 'shop-key', secret: 'shop-secret' };
const PLAIN = { id: 'plain', key: 'plain-key', secret: 'plain-secret' };
const MASTER_KEY = randomBytes(32).toString('base64');

let running: RunningRealtime;
let sdk: Pusher;
const cleanups: Array<() => unknown> = [];

beforeAll(async () => {
  const config = configSchema.parse({
    transport: process.env.REALTIME_TRANSPORT ?? 'auto',
    servers: { herald: { host: '127.0.0.1', port: 0, shutdown_grace_period: 0 } },
    applications: [{ ...APP, history: { enabled: true, max_events_per_channel: 50 } }, PLAIN],
  });
  running = await startRealtime(config, silentLogger);
  sdk = new Pusher({ ...sdkOptions(APP), encryptionMasterKeyBase64: MASTER_KEY });
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(() => running?.close());

function sdkOptions(app: { id: string; key: string; secret: string }) {
  return {
    appId: app.id,
    key: app.key,
    secret: app.secret,
    host: '127.0.0.1',
    port: String(running.port),
    useTLS: false,
  };
}

interface HistoryAnswer {
  events: Array<{ serial: number; event: string; data: string; user_id?: string }>;
  position: { serial: number; epoch: string };
  first_serial: number | null;
  has_more: boolean;
}

/** `GET /channels/{name}/history` through the SDK, which signs it as it signs every REST read. */
async function history(
  channel: string,
  params: Record<string, unknown> = {},
  client: Pusher = sdk,
): Promise<{ status: number; body: unknown }> {
  try {
    const response = await client.get({ path: `/channels/${encodeURIComponent(channel)}/history`, params });
    return { status: response.status, body: await response.json() };
  } catch (error) {
    // The SDK turns 4xx into a RequestError carrying the status and body.
    const failed = error as { status?: number; body?: string };
    if (failed.status === undefined) throw error;
    return { status: failed.status, body: JSON.parse(failed.body ?? 'null') };
  }
}

describe('GET /apps/{id}/channels/{name}/history', () => {
  it('answers the kept events after a serial, data exactly as triggered, with position and first serial', async () => {
    const data = ['plain text, not JSON', '{"id":2}', ' "quoted" \u00e9\u{1F600} ', '{"id":4}', '{"id":5}'];
    for (const item of data) await sdk.trigger('rest-orders', 'order.placed', item);

    const all = await history('rest-orders');
    expect(all.status).toBe(200);
    const answer = all.body as HistoryAnswer;
    expect(answer.events).toEqual(
      data.map((item, i) => ({ serial: i + 1, event: 'order.placed', data: item })),
    );
    expect(answer.position.serial).toBe(5);
    expect(answer.position.epoch).toMatch(/\S/);
    expect(answer.first_serial).toBe(1);
    expect(answer.has_more).toBe(false);

    const page = (await history('rest-orders', { after: 2, limit: 2 })).body as HistoryAnswer;
    expect(page.events.map((event) => event.serial)).toEqual([3, 4]);
    expect(page.has_more).toBe(true);
    expect(page.position).toEqual(answer.position);
    const rest = (await history('rest-orders', { after: 4, limit: 2 })).body as HistoryAnswer;
    expect(rest.events.map((event) => event.data)).toEqual(['{"id":5}']);
    expect(rest.has_more).toBe(false);
  });

  it('answers a channel with no events at serial 0 and no first serial', async () => {
    const answer = await history('rest-quiet');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      events: [],
      position: { serial: 0 },
      first_serial: null,
      has_more: false,
    });
  });

  it('takes the Bearer secret as the other REST reads do', async () => {
    await sdk.trigger('rest-bearer', 'ping', { n: 1 });
    const response = await fetch(
      `http://127.0.0.1:${running.port}/apps/${APP.id}/channels/rest-bearer/history?after=0`,
      { headers: { Authorization: `Bearer ${APP.secret}` } },
    );
    expect(response.status).toBe(200);
    expect(((await response.json()) as HistoryAnswer).events).toEqual([
      { serial: 1, event: 'ping', data: '{"n":1}' },
    ]);
    const wrong = await fetch(
      `http://127.0.0.1:${running.port}/apps/${APP.id}/channels/rest-bearer/history`,
      {
        headers: { Authorization: 'Bearer not-the-secret' },
      },
    );
    expect(wrong.status).toBe(401);
  });

  it('refuses a bad after or limit with 400 naming the parameter', async () => {
    for (const [params, field] of [
      [{ after: -1 }, 'after'],
      [{ after: 'abc' }, 'after'],
      [{ after: 1.5 }, 'after'],
      [{ limit: 0 }, 'limit'],
      [{ limit: 1001 }, 'limit'],
      [{ limit: 'ten' }, 'limit'],
    ] as const) {
      const answer = await history('rest-orders', params);
      expect(answer, JSON.stringify(params)).toMatchObject({ status: 400, body: { field } });
      expect((answer.body as { error: string }).error).toMatch(new RegExp(`^${field}: `));
    }
  });

  it('answers 404 for an unknown app and 409 with the key to set for an app without history', async () => {
    const unknown = await history('orders', {}, new Pusher(sdkOptions({ ...APP, id: 'nope' })));
    expect(unknown.status).toBe(404);
    const off = await history('orders', {}, new Pusher(sdkOptions(PLAIN)));
    expect(off).toEqual({
      status: 409,
      body: {
        error: 'history is off for app plain: set applications[].history.enabled to keep channel events',
      },
    });
  });
});

describe('recovery on authorised channels', () => {
  it('sends no replay to a resubscribe whose authorisation does not hold', async () => {
    const channel = 'private-refused';
    const first = await rawSocket(APP.key);
    const auth = sdk.authorizeChannel(first.socketId, channel).auth;
    first.send({ event: 'pusher:subscribe', data: { channel, auth } });
    await until(() => first.frames.some((frame) => frame.includes('subscription_succeeded')), {
      what: 'the first subscription',
    });
    first.ws.close();
    await sdk.trigger(channel, 'tick', { i: 1 });
    await sdk.trigger(channel, 'tick', { i: 2 });

    // Back on a new socket with a position but the old socket's signature, as a stale client would send it.
    const second = await rawSocket(APP.key);
    second.send({
      event: 'pusher:subscribe',
      data: { channel, auth, herald_after: 0, herald_epoch: positionOf(first.frames) },
    });
    await until(() => second.frames.some((frame) => frame.includes('pusher:subscription_error')), {
      what: 'the refusal',
    });
    // A ping answered after the refused subscribe proves nothing else came for it (one socket, in order).
    await fence({
      received: () => second.frames,
      sendMarker: () => second.send({ event: 'pusher:ping', data: {} }),
      isMarker: (frame) => frame.includes('pusher:pong'),
      unwanted: (frame) => frame.includes('"tick"') || frame.includes('herald:recovery_failed'),
      what: 'a replayed event',
    });
  });

  it('authorises presence and encrypted channels again on resubscribe, replays each exactly once, and keeps only the publisher’s ciphertext', async () => {
    // One cut for both channels: a reconnect costs pusher-js several seconds, and the suite runs four times in CI.
    const room = 'presence-room';
    const ledger = 'private-encrypted-ledger';
    // What the SDK sends on the wire (its public `post`, which `trigger` uses): `data` is already ciphertext.
    const sent: string[] = [];
    const publisher = new Pusher({ ...sdkOptions(APP), encryptionMasterKeyBase64: MASTER_KEY });
    const post = publisher.post.bind(publisher);
    publisher.post = (options) => {
      // Typed as a string by the SDK's typings; `trigger` hands `post` the object it serialises.
      const sentBody: unknown = options.body;
      const body = sentBody as { data: string; channels: string[] };
      if (body.channels.includes(ledger)) sent.push(body.data);
      return post(options);
    };
    const { pusher, authorised } = await client();
    const [roomTicks, ledgerTicks] = await Promise.all([listen(pusher, room), listen(pusher, ledger)]);
    await publisher.trigger(room, 'tick', { i: 1 });
    await publisher.trigger(ledger, 'tick', { i: 1, secret: 'card-1' });
    await until(() => roomTicks.length === 1 && ledgerTicks.length === 1, { what: 'the first events' });
    await awayWhile(pusher, async () => {
      for (let i = 2; i <= 4; i += 1) {
        await publisher.trigger(room, 'tick', { i });
        await publisher.trigger(ledger, 'tick', { i, secret: `card-${i}` });
      }
    });
    await until(() => roomTicks.length >= 4 && ledgerTicks.length >= 4, { what: 'the replays' });
    await fence({
      received: () => roomTicks,
      sendMarker: () => publisher.trigger(room, 'tick', { i: 5 }),
      isMarker: (i) => i === 5,
    });
    expect(roomTicks).toEqual([1, 2, 3, 4, 5]);
    // pusher-js decrypted the replayed events with the shared secret it was given on the new authorisation.
    expect(ledgerTicks).toEqual([1, 2, 3, 4]);
    expect(authorised.filter((name) => name === room)).toHaveLength(2);
    expect(authorised.filter((name) => name === ledger)).toHaveLength(2);
    // Members are not replayed: the client holds the current list (itself), as after any subscribe.
    expect(pusher.channel(room)).toMatchObject({ members: { count: 1 } });

    const kept = (await history(ledger)).body as HistoryAnswer;
    expect(sent).toHaveLength(4);
    expect(kept.events.map((event) => event.data)).toEqual(sent);
    for (const event of kept.events) {
      expect(Object.keys(JSON.parse(event.data)).sort()).toEqual(['ciphertext', 'nonce']);
      expect(event.data).not.toContain('card-');
    }
  });
});

describe('/metrics', () => {
  it('counts replays, replayed events and recovery failures by reason, and shows history size per app', async () => {
    for (let i = 1; i <= 3; i += 1) await sdk.trigger('metered', 'tick', { i });
    const epoch = ((await history('metered')).body as HistoryAnswer).position.epoch;
    const before = await scrape();
    // A resubscribe from serial 1 is sent 2 and 3; one to an app without history is told `disabled`.
    const replayed = await rawSocket(APP.key);
    replayed.send({
      event: 'pusher:subscribe',
      data: { channel: 'metered', herald_after: 1, herald_epoch: epoch },
    });
    await until(() => replayed.frames.filter((frame) => frame.includes('"tick"')).length === 2, {
      what: 'the replay',
    });
    const refused = await rawSocket(PLAIN.key);
    refused.send({
      event: 'pusher:subscribe',
      data: { channel: 'metered', herald_after: 1, herald_epoch: epoch },
    });
    await until(() => refused.frames.some((frame) => frame.includes('herald:recovery_failed')), {
      what: 'the failure',
    });
    const after = await scrape();
    const grew = (series: string) => (after.get(series) ?? 0) - (before.get(series) ?? 0);
    expect(grew('herald_history_replays_total{app_id="shop"}')).toBe(1);
    expect(grew('herald_history_replayed_events_total{app_id="shop"}')).toBe(2);
    expect(grew('herald_recovery_failures_total{app_id="plain",reason="disabled"}')).toBe(1);
    expect(after.get('herald_history_events{app_id="shop"}')).toBeGreaterThanOrEqual(3);
    expect(after.get('herald_history_bytes{app_id="shop"}')).toBeGreaterThan(0);
    // An app without history has no size series.
    expect(after.has('herald_history_events{app_id="plain"}')).toBe(false);
  });
});

/** `/metrics` as series name with labels → value. */
async function scrape(): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${running.port}/metrics`)).text();
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line === '') continue;
    const space = line.lastIndexOf(' ');
    series.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return series;
}

/** A pusher-js client with the plugin, through a proxy the test can cut; signs channels as an auth endpoint. */
async function client() {
  const proxy = await startTcpProxy({ host: '127.0.0.1', port: running.port });
  cleanups.push(() => proxy.close());
  const authorised: string[] = [];
  const signer = {
    authorizeChannel: (socketId: string, channel: string) => {
      authorised.push(channel);
      return channel.startsWith('presence-')
        ? sdk.authorizeChannel(socketId, channel, { user_id: 'u1', user_info: { name: 'Ada' } })
        : sdk.authorizeChannel(socketId, channel);
    },
  };
  const pusher: PusherClient = pusherJsClient(proxy.port, APP.key, signer);
  cleanups.push(() => pusher.disconnect());
  enableRecovery(pusher);
  proxies.set(pusher, proxy);
  return { pusher, authorised };
}
const proxies = new WeakMap<PusherClient, TcpProxy>();

async function listen(pusher: PusherClient, name: string) {
  const ticks: number[] = [];
  const channel = pusher.subscribe(name);
  channel.bind('tick', (data: { i: number }) => ticks.push(data.i));
  await new Promise<void>((resolve) => channel.bind('pusher:subscription_succeeded', () => resolve()));
  return ticks;
}

/**
 * Cuts the client's connection, runs `away` while it is down, and waits until pusher-js is back by itself. pusher-js
 * sees the close at once and tries again a second later; an attempt that meets the refusing proxy fails and
 * pusher-js's connection strategy waits out a 15 s step timeout before the next (see network-outage.ts), so the
 * proxy is restored as soon as `away` is done (an `away` over a second only makes the test 15 s slower).
 */
async function awayWhile(pusher: PusherClient, away: () => Promise<unknown>): Promise<void> {
  const proxy = proxies.get(pusher) as TcpProxy;
  const before = pusher.connection.socket_id;
  let closed = false;
  const onError = () => {
    closed = true;
  };
  pusher.connection.bind('error', onError);
  proxy.cut();
  await until(() => closed, { what: 'pusher-js to see the cut' });
  pusher.connection.unbind('error', onError);
  await away();
  proxy.restore();
  await until(() => pusher.connection.state === 'connected' && pusher.connection.socket_id !== before, {
    what: 'pusher-js to reconnect',
    limitMs: 90_000,
  });
}

/** A raw WebSocket recording every frame's text, with its socket id once established. */
async function rawSocket(key: string) {
  const frames: string[] = [];
  const ws = new WebSocket(`ws://127.0.0.1:${running.port}/app/${key}?protocol=7`);
  cleanups.push(() => ws.close());
  ws.on('message', (raw) => frames.push(raw.toString()));
  await until(() => frames.length > 0, { what: 'connection_established' });
  const established = JSON.parse(frames[0] as string) as { data: string };
  const socketId = (JSON.parse(established.data) as { socket_id: string }).socket_id;
  return { ws, frames, socketId, send: (frame: unknown) => ws.send(JSON.stringify(frame)) };
}

/** The epoch a subscription's confirmation carried. */
function positionOf(frames: readonly string[]): string {
  const confirmation = frames.find((frame) => frame.includes('subscription_succeeded')) as string;
  return (JSON.parse(confirmation) as { herald_epoch: string }).herald_epoch;
}
