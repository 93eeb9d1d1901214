import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Pusher from 'pusher';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ApiApp, createHttpApi, type RealtimeBackend } from '../src/index.js';
import { createMemoryBackend, type MemoryBackend } from '../src/testing.js';

const app: ApiApp = { id: '42', key: 'sdk-key', secret: 'sdk-secret', enabled: true, allowedOrigins: ['*'] };

function headersOf(request: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  return headers;
}

/** A node:http server that hands every request to a fetch handler, as the real-time server's bridge does. */
function serveFetch(handler: (request: Request) => Promise<Response>): Server {
  return createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const hasBody = incoming.method !== 'GET' && incoming.method !== 'HEAD';
    const response = await handler(
      new Request(`http://127.0.0.1${incoming.url}`, {
        method: incoming.method ?? 'GET',
        headers: headersOf(incoming),
        ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
      }),
    );
    outgoing.writeHead(response.status, Object.fromEntries(response.headers));
    outgoing.end(Buffer.from(await response.arrayBuffer()));
  });
}

let backend: MemoryBackend;
let server: Server;
let port: string;

beforeAll(async () => {
  const api = createHttpApi({
    apps: (id) => (id === app.id ? app : undefined),
    backend: forwarding,
  });
  server = serveFetch((request) => Promise.resolve(api.fetch(request)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = String((server.address() as AddressInfo).port);
});

afterAll(async () => {
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
});

beforeEach(() => {
  backend = createMemoryBackend();
});

/** Forwards to the current test's backend, so each test starts from an empty one. */
const forwarding: RealtimeBackend = {
  publish: (...args) => backend.publish(...args),
  channels: (...args) => backend.channels(...args),
  channel: (...args) => backend.channel(...args),
  presenceUsers: (...args) => backend.presenceUsers(...args),
  terminateUser: (...args) => backend.terminateUser(...args),
  metrics: () => backend.metrics(),
};

const sdk = (secret = app.secret) =>
  new Pusher({ appId: app.id, key: app.key, secret, host: '127.0.0.1', port, useTLS: false });

describe('the official pusher SDK against the HTTP API', () => {
  it('triggers to one channel and to many, excluding a socket', async () => {
    const response = await sdk().trigger(
      ['orders', 'audit'],
      'order.created',
      { id: 7 },
      { socket_id: '123.456' },
    );
    expect(response.status).toBe(200);
    await sdk().trigger('news', 'headline', 'already a string');
    expect(backend.published).toEqual([
      {
        appId: '42',
        event: {
          channels: ['orders', 'audit'],
          event: 'order.created',
          data: '{"id":7}',
          excludeSocketId: '123.456',
        },
      },
      {
        appId: '42',
        event: {
          channels: ['news'],
          event: 'headline',
          data: 'already a string',
          excludeSocketId: undefined,
        },
      },
    ]);
  });

  it('triggers with info and reads the counts back', async () => {
    backend.setChannel('42', 'presence-room', { subscriptionCount: 2, users: ['1', '2'] });
    const response = await sdk().trigger('presence-room', 'e', {}, { info: 'user_count,subscription_count' });
    expect(await response.json()).toEqual({
      channels: { 'presence-room': { user_count: 2, subscription_count: 2 } },
    });
  });

  it('triggers a batch', async () => {
    const response = await sdk().triggerBatch([
      { channel: 'a', name: 'one', data: { n: 1 } },
      { channel: 'b', name: 'two', data: { n: 2 }, socket_id: '1.2' },
    ]);
    expect(response.status).toBe(200);
    expect(
      backend.published.map(({ event }) => [event.channels, event.event, event.data, event.excludeSocketId]),
    ).toEqual([
      [['a'], 'one', '{"n":1}', undefined],
      [['b'], 'two', '{"n":2}', '1.2'],
    ]);
  });

  it('lists channels with a prefix filter and user counts', async () => {
    backend.setChannel('42', 'presence-room', { subscriptionCount: 3, users: ['1', '2'] });
    backend.setChannel('42', 'news', { subscriptionCount: 1 });
    const response = await sdk().get({
      path: '/channels',
      params: { filter_by_prefix: 'presence-', info: 'user_count' },
    });
    expect(await response.json()).toEqual({ channels: { 'presence-room': { user_count: 2 } } });
    expect(backend.channelQueries).toEqual([{ appId: '42', query: { prefix: 'presence-' } }]);
  });

  it('reads one channel and the users of a presence channel', async () => {
    backend.setChannel('42', 'presence-room', { subscriptionCount: 3, users: ['1', '2'] });
    const channel = await sdk().get({
      path: '/channels/presence-room',
      params: { info: 'user_count,subscription_count' },
    });
    expect(await channel.json()).toEqual({ occupied: true, user_count: 2, subscription_count: 3 });
    const users = await sdk().get({ path: '/channels/presence-room/users' });
    expect(await users.json()).toEqual({ users: [{ id: '1' }, { id: '2' }] });
  });

  it("terminates a user's connections", async () => {
    const response = await sdk().terminateUserConnections('user-9');
    expect(response.status).toBe(200);
    expect(backend.terminated).toEqual([{ appId: '42', userId: 'user-9' }]);
  });

  it('is refused with 401 when signing with another secret', async () => {
    await expect(sdk('not-the-secret').trigger('news', 'e', {})).rejects.toMatchObject({ status: 401 });
    expect(backend.published).toEqual([]);
  });
});
