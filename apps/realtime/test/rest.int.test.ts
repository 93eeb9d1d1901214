import { signRequest, signUserAuth } from '@herald/protocol-core';
import { silentLogger } from '@herald/realtime-server';
import { until } from '@herald/test-kit';
import Pusher from 'pusher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { configSchema } from '../src/config-schema.js';
import { type RunningRealtime, startRealtime } from '../src/start.js';
import { triggerMarker } from './fence.js';
import { PusherClient } from './pusher-client.js';
import { socket } from './raw-socket.js';

const APP = { id: 'shop', key: 'shop-key', secret: 'shop-secret' };

async function boot(path = ''): Promise<RunningRealtime> {
  const config = configSchema.parse({
    transport: process.env.REALTIME_TRANSPORT ?? 'auto',
    servers: { herald: { host: '127.0.0.1', port: 0, path } },
    applications: [APP, { id: 'off', key: 'off-key', secret: 'off-secret', enabled: false }],
  });
  return startRealtime(config, silentLogger);
}

describe('the REST API on a running server, through the official pusher SDK', () => {
  let running: RunningRealtime;
  let sdk: Pusher;

  beforeAll(async () => {
    running = await boot();
    sdk = new Pusher({
      appId: APP.id,
      key: APP.key,
      secret: APP.secret,
      host: '127.0.0.1',
      port: String(running.port),
      useTLS: false,
    });
  });
  afterAll(() => running.close());

  it('triggers to one channel and to many, data byte for byte', async () => {
    const a = await socket(running.port);
    await a.subscribe('alpha');
    await a.subscribe('beta');
    await sdk.trigger('alpha', 'one', { text: 'ünïcødé "quoted"' });
    await sdk.trigger(['alpha', 'beta'], 'many', 'plain string');
    await a.waitFor((f) => f.event === 'one');
    await a.waitFor((f) => f.event === 'many' && f.channel === 'beta');
    expect(a.frames.find((f) => f.event === 'one')?.data).toEqual({ text: 'ünïcødé "quoted"' });
    expect(
      a.frames
        .filter((f) => f.event === 'many')
        .map((f) => f.channel)
        .sort(),
    ).toEqual(['alpha', 'beta']);
    a.ws.close();
  });

  it('does not deliver to the socket named in socket_id', async () => {
    const sender = await socket(running.port);
    const other = await socket(running.port);
    await sender.subscribe('room');
    await other.subscribe('room');
    await sdk.trigger('room', 'said', { x: 1 }, { socket_id: sender.socketId });
    await other.waitFor((f) => f.event === 'said');
    await triggerMarker(sdk, 'room', [sender, other]);
    expect(sender.frames.some((f) => f.event === 'said')).toBe(false);
    sender.ws.close();
    other.ws.close();
  });

  it('answers trigger info with user and subscription counts', async () => {
    const member = await socket(running.port);
    await member.subscribe('presence-team', JSON.stringify({ user_id: 'u1', user_info: { name: 'Ada' } }));
    const response = await sdk.trigger(
      'presence-team',
      'ping',
      {},
      { info: 'user_count,subscription_count' },
    );
    expect(await response.json()).toEqual({
      channels: { 'presence-team': { user_count: 1, subscription_count: 1 } },
    });
    member.ws.close();
  });

  it('sends a batch and answers {} ', async () => {
    const a = await socket(running.port);
    await a.subscribe('batch-1');
    const response = await sdk.triggerBatch([
      { channel: 'batch-1', name: 'first', data: '1' },
      { channel: 'batch-1', name: 'second', data: '2' },
    ]);
    expect(await response.json()).toEqual({});
    await a.waitFor((f) => f.event === 'second');
    expect(
      a.frames
        .filter((f) => f.channel === 'batch-1' && f.event !== 'pusher_internal:subscription_succeeded')
        .map((f) => f.event),
    ).toEqual(['first', 'second']);
    a.ws.close();
  });

  it('lists channels with a prefix filter and user counts, reads one channel and its users', async () => {
    const a = await socket(running.port);
    const b = await socket(running.port);
    await a.subscribe('presence-lobby', JSON.stringify({ user_id: '1' }));
    await b.subscribe('presence-lobby', JSON.stringify({ user_id: '2' }));
    await a.subscribe('cache-quotes');
    await sdk.trigger('cache-quotes', 'quote', { price: 3 });

    const list = await (
      await sdk.get({ path: '/channels', params: { filter_by_prefix: 'presence-', info: 'user_count' } })
    ).json();
    expect(list).toEqual({ channels: { 'presence-lobby': { user_count: 2 } } });

    const one = await (
      await sdk.get({ path: '/channels/presence-lobby', params: { info: 'user_count,subscription_count' } })
    ).json();
    expect(one).toMatchObject({ occupied: true, user_count: 2, subscription_count: 2 });

    const cached = await (
      await sdk.get({ path: '/channels/cache-quotes', params: { info: 'cache' } })
    ).json();
    expect(cached.cache).toMatchObject({ data: '{"price":3}' });

    const users = await (await sdk.get({ path: '/channels/presence-lobby/users' })).json();
    expect(users.users.map((u: { id: string }) => u.id).sort()).toEqual(['1', '2']);
    a.ws.close();
    b.ws.close();
  });

  it('terminates a signed-in user: their sockets close with 4009, others stay', async () => {
    const target = await socket(running.port);
    const bystander = await socket(running.port);
    const userData = JSON.stringify({ id: 'bad-user' });
    target.send({
      event: 'pusher:signin',
      data: { auth: signUserAuth(APP, target.socketId, userData), user_data: userData },
    });
    await target.waitFor((f) => f.event === 'pusher:signin_success');
    await sdk.terminateUserConnections('bad-user');
    expect(await target.closed).toBe(4009);
    // A ping answered after the termination: a close for the bystander would have come first.
    bystander.send({ event: 'pusher:ping', data: {} });
    await bystander.waitFor((f) => f.event === 'pusher:pong');
    expect(bystander.ws.readyState).toBe(WebSocket.OPEN);
    bystander.ws.close();
  });

  it('delivers sendToUser to a pusher-js client that signed in', async () => {
    const client = new PusherClient(APP.key, {
      cluster: 'mt1',
      wsHost: '127.0.0.1',
      wsPort: running.port,
      forceTLS: false,
      enabledTransports: ['ws'],
      userAuthentication: {
        endpoint: '/unused',
        transport: 'ajax',
        customHandler: ({ socketId }, callback) =>
          callback(null, sdk.authenticateUser(socketId, { id: 'u-42' })),
      },
    });
    client.signin();
    await client.user.signinDonePromise;
    const received = new Promise((resolve) => client.user.bind('invoice', resolve));
    await until(
      async () => (await running.server.channel(APP.id, '#server-to-user-u-42')).subscriptionCount > 0,
      'the personal channel subscribed',
    );
    await sdk.sendToUser('u-42', 'invoice', { total: 9 });
    expect(await received).toEqual({ total: 9 });
    client.disconnect();
  });

  it('serves health without auth and Prometheus metrics with app labels', async () => {
    const base = `http://127.0.0.1:${running.port}`;
    expect(await (await fetch(`${base}/up`)).json()).toEqual({ health: 'OK' });
    expect(await (await fetch(`${base}/pusher/health`)).json()).toEqual({ health: 'OK' });
    const a = await socket(running.port);
    // A request naming an app this server does not serve is counted without a series of its own.
    expect((await fetch(`${base}/apps/made-up-app/channels`)).status).toBeGreaterThanOrEqual(400);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/herald_connected\{app_id="shop"\} [1-9]/);
    expect(metrics).toMatch(/herald_http_calls_received_total\{app_id="shop"\} [1-9]/);
    expect(metrics).toMatch(/herald_http_calls_received_total\{app_id=""\} [1-9]/);
    expect(metrics).not.toContain('made-up-app');
    expect(metrics).toMatch(/herald_new_connections_total\{app_id="shop"\} [1-9]/);
    expect(metrics).toContain('herald_process_cpu_seconds_total');
    a.ws.close();
  });
});

describe('REST refusals on a running server', () => {
  let running: RunningRealtime;
  let base: string;

  beforeAll(async () => {
    running = await boot('/realtime');
    base = `http://127.0.0.1:${running.port}`;
  });
  afterAll(() => running.close());

  const body = JSON.stringify({ name: 'e', channel: 'c', data: '{}' });

  function signed(options: {
    path?: string;
    secret?: string;
    timestamp?: number;
    bodyText?: string;
    md5Body?: string;
  }) {
    const path = options.path ?? '/apps/shop/events';
    const params = signRequest(
      { key: APP.key, secret: options.secret ?? APP.secret },
      { method: 'POST', path, body: options.md5Body ?? options.bodyText ?? body },
      options.timestamp,
    );
    return new URLSearchParams(params).toString();
  }

  async function post(query: string, text = body) {
    return fetch(`${base}/realtime/apps/shop/events?${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: text,
    });
  }

  it('accepts a signature made over the prefixed path and one over the bare path', async () => {
    expect((await post(signed({ path: '/realtime/apps/shop/events' }))).status).toBe(200);
    expect((await post(signed({ path: '/apps/shop/events' }))).status).toBe(200);
  });

  it('refuses a stale timestamp with 401', async () => {
    const response = await post(signed({ timestamp: Math.floor(Date.now() / 1000) - 601 }));
    expect(response.status).toBe(401);
    expect(await response.json()).toHaveProperty('error');
  });

  it('refuses a wrong body_md5 with 401', async () => {
    expect((await post(signed({ md5Body: '{"other":true}' }))).status).toBe(401);
  });

  it('refuses a signature made with a foreign secret with 401', async () => {
    expect((await post(signed({ secret: 'someone-elses-secret' }))).status).toBe(401);
  });

  it('refuses an oversized body with 413', async () => {
    const big = JSON.stringify({ name: 'e', channel: 'c', data: 'x'.repeat(20_000) });
    const response = await fetch(`${base}/realtime/apps/shop/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${APP.secret}`, 'content-type': 'application/json' },
      body: big,
    });
    expect(response.status).toBe(413);
  });

  it('answers 403 for a disabled app and 404 for an unknown one', async () => {
    const headers = { authorization: 'Bearer off-secret', 'content-type': 'application/json' };
    expect((await fetch(`${base}/realtime/apps/off/events`, { method: 'POST', headers, body })).status).toBe(
      403,
    );
    expect((await fetch(`${base}/realtime/apps/nope/events`, { method: 'POST', headers, body })).status).toBe(
      404,
    );
  });

  it('delivers over the prefixed socket path', async () => {
    const a = await socket(running.port, '/realtime');
    await a.subscribe('c');
    expect((await post(signed({}))).status).toBe(200);
    await a.waitFor((f) => f.event === 'e');
    a.ws.close();
  });
});
