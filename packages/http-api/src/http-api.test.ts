import { md5Hex, signRequest } from '@herald/protocol-core';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApiApp } from './api-app.js';
import { createHttpApi, type HttpApiOptions, type HttpApiRequest } from './http-api.js';
import type { Logger } from './logger.js';
import { memoryRateLimitStore, type RateLimitStore } from './rate-limits.js';
import { createMemoryBackend, MEMORY_BACKEND_METRICS, type MemoryBackend } from './testing.js';

const app: ApiApp = {
  id: '1',
  key: 'app-key',
  secret: 'app-secret',
  enabled: true,
  allowedOrigins: ['https://allowed.example', '*.trusted.example'],
};
const disabled: ApiApp = {
  id: '2',
  key: 'off-key',
  secret: 'off-secret',
  enabled: false,
  allowedOrigins: ['*'],
};
const bearer = { authorization: 'Bearer app-secret' };

let backend: MemoryBackend;
beforeEach(() => {
  backend = createMemoryBackend();
});

const apiWith = (options: Partial<HttpApiOptions> = {}) =>
  createHttpApi({ apps: [app, disabled], backend, ...options });

interface SignOptions {
  readonly query?: Record<string, string>;
  readonly body?: string;
  readonly signedPath?: string;
  readonly timestamp?: number;
  readonly secret?: string;
  readonly key?: string;
}

/** The path and query of a request signed as the server SDKs sign it. */
function signed(method: string, path: string, options: SignOptions = {}): string {
  const params = signRequest(
    { key: options.key ?? app.key, secret: options.secret ?? app.secret },
    { method, path: options.signedPath ?? path, query: options.query ?? {}, body: options.body ?? '' },
    options.timestamp,
  );
  return `${path}?${new URLSearchParams(params)}`;
}

function post(
  api: ReturnType<typeof apiWith>,
  path: string,
  body: unknown,
  headers: Record<string, string> = bearer,
) {
  return api.request(path, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const trigger = { name: 'order.created', data: '{"id":1}', channel: 'orders' };

describe('health and metrics', () => {
  it('answers /up and /pusher/health without auth', async () => {
    const api = apiWith();
    for (const path of ['/up', '/pusher/health']) {
      const response = await api.request(path);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ health: 'OK' });
    }
  });

  it('answers /ready 200 while serving and 503 once the backend drains, without auth', async () => {
    let draining = false;
    const api = apiWith({ backend: { ...backend, ready: () => !draining } });
    const serving = await api.request('/ready');
    expect(serving.status).toBe(200);
    expect(await serving.json()).toEqual({ ready: true });
    draining = true;
    const leaving = await api.request('/ready');
    expect(leaving.status).toBe(503);
    expect(await leaving.json()).toEqual({ ready: false, reason: 'draining' });
    expect((await api.request('/up')).status).toBe(200);
  });

  it("serves the backend's Prometheus text at /metrics", async () => {
    const response = await apiWith().request('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(MEMORY_BACKEND_METRICS.contentType);
    expect(await response.text()).toBe(MEMORY_BACKEND_METRICS.body);
  });

  it('asks for the metrics token when one is set: 401 JSON without it or with another, the text with it', async () => {
    const token = 'metrics-token-0123456789';
    const api = apiWith({ metrics: { token } });
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer metrics-token-012345678' },
      { authorization: token },
    ];
    for (const headers of attempts) {
      const refused = await api.request('/metrics', { headers });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(await refused.json()).toEqual({ error: 'Unauthorized' });
    }
    const allowed = await api.request('/metrics', { headers: { authorization: `Bearer ${token}` } });
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toBe(MEMORY_BACKEND_METRICS.body);
  });

  it('does not answer /metrics when it is served on a port of its own', async () => {
    expect((await apiWith({ metrics: { served: false } }).request('/metrics')).status).toBe(404);
  });
});

describe('POST /apps/{id}/events', () => {
  it('publishes the data byte for byte and answers {}', async () => {
    const data = '{ "text" : "héllo",  "n":[1, 2] }';
    const response = await post(apiWith(), '/apps/1/events', { ...trigger, data, socket_id: '123.456' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({});
    expect(backend.published).toEqual([
      {
        appId: '1',
        event: { channels: ['orders'], event: 'order.created', data, excludeSocketId: '123.456' },
      },
    ]);
  });

  it('accepts a request signed with the HMAC query signature', async () => {
    const body = JSON.stringify({ ...trigger, channels: ['a', 'b'], channel: undefined });
    const response = await post(apiWith(), signed('POST', '/apps/1/events', { body }), body, {});
    expect(response.status).toBe(200);
    expect(backend.published[0]?.event.channels).toEqual(['a', 'b']);
  });

  it('reports user_count for presence channels and subscription_count for all when info asks', async () => {
    backend.setChannel('1', 'presence-room', { subscriptionCount: 3, users: ['1', '2', '2'] });
    backend.setChannel('1', 'news', { subscriptionCount: 1 });
    const response = await post(apiWith(), '/apps/1/events', {
      ...trigger,
      channel: undefined,
      channels: ['presence-room', 'news'],
      info: 'user_count,subscription_count',
    });
    expect(await response.json()).toEqual({
      channels: {
        'presence-room': { user_count: 2, subscription_count: 3 },
        news: { subscription_count: 1 },
      },
    });
  });

  it.each([
    ['a socket_id that is not a socket id', { ...trigger, socket_id: '1234' }, 'socket_id'],
    [
      '101 channels',
      { ...trigger, channel: undefined, channels: Array.from({ length: 101 }, (_, i) => `c${i}`) },
      'channels',
    ],
    ['an event name over 200 characters', { ...trigger, name: 'e'.repeat(201) }, 'name'],
    ['a channel name over 164 characters', { ...trigger, channel: 'c'.repeat(165) }, 'channels'],
    ['data that is not a string', { ...trigger, data: { id: 1 } }, 'data'],
    ['no name', { ...trigger, name: undefined }, 'name'],
  ])('answers 400 naming the field for %s', async (_, body, field) => {
    const response = await post(apiWith(), '/apps/1/events', body);
    expect(response.status).toBe(400);
    const answer = (await response.json()) as { error: string; field: string };
    expect(answer.field).toBe(field);
    expect(answer.error).toMatch(new RegExp(`^${field.replace(/[[\]]/g, '\\$&')}: `));
    expect(backend.published).toEqual([]);
  });

  it('answers 400 to a body that is not JSON', async () => {
    const response = await post(apiWith(), '/apps/1/events', '{"name":');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ field: 'body' });
  });

  it('answers 413 to data over 10 KB and publishes nothing', async () => {
    const api = apiWith({ maxRequestSize: 100_000 });
    const response = await post(api, '/apps/1/events', { ...trigger, data: 'x'.repeat(10 * 1024 + 1) });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ field: 'data' });
    expect(backend.published).toEqual([]);
  });
});

describe('POST /apps/{id}/batch_events', () => {
  const event = (channel: string, extra: object = {}) => ({
    name: 'tick',
    data: `"${channel}"`,
    channel,
    ...extra,
  });

  it('publishes every event in order and answers {}', async () => {
    const response = await post(apiWith(), '/apps/1/batch_events', {
      batch: [event('a'), event('b', { socket_id: '1.2' })],
    });
    expect(await response.json()).toEqual({});
    expect(backend.published.map(({ event }) => event)).toEqual([
      { channels: ['a'], event: 'tick', data: '"a"', excludeSocketId: undefined },
      { channels: ['b'], event: 'tick', data: '"b"', excludeSocketId: '1.2' },
    ]);
  });

  it('answers one entry per event, in order, when an event asks for info', async () => {
    backend.setChannel('1', 'presence-a', { subscriptionCount: 2, users: ['u1', 'u2'] });
    const response = await post(apiWith(), '/apps/1/batch_events', {
      batch: [event('presence-a', { info: 'user_count,subscription_count' }), event('b')],
    });
    expect(await response.json()).toEqual({ batch: [{ user_count: 2, subscription_count: 2 }, {}] });
  });

  it('answers 400 to 11 events', async () => {
    const response = await post(apiWith(), '/apps/1/batch_events', {
      batch: Array.from({ length: 11 }, () => event('a')),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'batch: must hold at most 10 events', field: 'batch' });
  });

  it('answers 413 when one event carries data over the payload limit', async () => {
    const api = apiWith({ maxRequestSize: 100_000 });
    const big = { name: 'tick', channel: 'a', data: 'x'.repeat(10 * 1024 + 1) };
    const response = await post(api, '/apps/1/batch_events', { batch: [event('a'), big] });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ field: 'batch[1].data' });
  });
});

describe('GET /apps/{id}/channels', () => {
  beforeEach(() => {
    backend.setChannel('1', 'presence-a', { subscriptionCount: 3, users: ['1', '2'] });
    backend.setChannel('1', 'presence-b', { subscriptionCount: 1, users: ['1'] });
    backend.setChannel('1', 'news', { subscriptionCount: 4 });
    backend.setChannel('1', 'empty', { subscriptionCount: 0 });
  });

  it('lists occupied channels', async () => {
    const response = await apiWith().request('/apps/1/channels', { headers: bearer });
    expect(await response.json()).toEqual({ channels: { 'presence-a': {}, 'presence-b': {}, news: {} } });
  });

  it('filters by prefix and reports user_count on presence channels', async () => {
    const path = signed('GET', '/apps/1/channels', {
      query: { filter_by_prefix: 'presence-', info: 'user_count' },
    });
    const response = await apiWith().request(path);
    expect(await response.json()).toEqual({
      channels: { 'presence-a': { user_count: 2 }, 'presence-b': { user_count: 1 } },
    });
    expect(backend.channelQueries).toEqual([{ appId: '1', query: { prefix: 'presence-' } }]);
  });

  it('answers 400 to info=user_count without a presence- prefix', async () => {
    for (const query of ['info=user_count', 'info=user_count&filter_by_prefix=private-']) {
      const response = await apiWith().request(`/apps/1/channels?${query}`, { headers: bearer });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ field: 'info' });
    }
  });
});

describe('GET /apps/{id}/channels/{name}', () => {
  it('reports occupancy, counts and the cached event', async () => {
    backend.setChannel('1', 'presence-cache-room', {
      subscriptionCount: 3,
      users: ['1', '2'],
      cache: { event: 'e', data: '{"last":true}', ttl: 1700 },
    });
    const path = signed('GET', '/apps/1/channels/presence-cache-room', {
      query: { info: 'user_count,subscription_count,cache' },
    });
    const response = await apiWith().request(path);
    expect(await response.json()).toEqual({
      occupied: true,
      user_count: 2,
      subscription_count: 3,
      cache: { data: '{"last":true}', ttl: 1700 },
    });
  });

  it('answers occupied: false for a channel nobody is on', async () => {
    const response = await apiWith().request('/apps/1/channels/quiet', { headers: bearer });
    expect(await response.json()).toEqual({ occupied: false });
  });

  it('answers 400 to info=user_count on a channel that is not presence', async () => {
    const response = await apiWith().request('/apps/1/channels/private-a?info=user_count', {
      headers: bearer,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ field: 'info' });
  });

  it('answers 400 to a channel name over the length limit', async () => {
    const response = await apiWith().request(`/apps/1/channels/${'c'.repeat(165)}`, { headers: bearer });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ field: 'channel_name' });
  });
});

describe('GET /apps/{id}/channels/{name}/users', () => {
  it('lists the users of a presence channel', async () => {
    backend.setChannel('1', 'presence-room', { subscriptionCount: 3, users: ['1', '2', '1'] });
    const response = await apiWith().request(signed('GET', '/apps/1/channels/presence-room/users'));
    expect(await response.json()).toEqual({ users: [{ id: '1' }, { id: '2' }] });
  });

  it('answers 400 for a channel that is not presence', async () => {
    const response = await apiWith().request('/apps/1/channels/private-room/users', { headers: bearer });
    expect(response.status).toBe(400);
  });
});

describe('POST /apps/{id}/users/{user_id}/terminate_connections', () => {
  it("asks the backend to close the user's sockets and answers {}", async () => {
    const response = await post(apiWith(), '/apps/1/users/user-42/terminate_connections', {});
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({});
    expect(backend.terminated).toEqual([{ appId: '1', userId: 'user-42' }]);
  });
});

describe('auth, apps and routes', () => {
  const body = JSON.stringify(trigger);

  it.each([
    ['no credentials', '/apps/1/events', {}],
    ['a Bearer header with a wrong secret', '/apps/1/events', { authorization: 'Bearer off-secret' }],
    [
      'a timestamp 601 seconds old',
      signed('POST', '/apps/1/events', { body, timestamp: Math.floor(Date.now() / 1000) - 601 }),
      {},
    ],
    [
      'a signature made with a foreign secret',
      signed('POST', '/apps/1/events', { body, secret: 'foreign' }),
      {},
    ],
    ['an auth_key that is not the app key', signed('POST', '/apps/1/events', { body, key: 'off-key' }), {}],
  ])('answers 401 to %s', async (_, path, headers) => {
    const response = await post(apiWith(), path, body, headers);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: expect.stringMatching(/^Unauthorized: /) });
    expect(backend.published).toEqual([]);
  });

  it('answers a body_md5 that does not match the body as any bad signature: 401 without saying which part', async () => {
    const path = signed('POST', '/apps/1/events', { body }).replace(md5Hex(body), md5Hex('{}'));
    const response = await post(apiWith(), path, body, {});
    expect(response.status).toBe(401);
    const foreign = await post(
      apiWith(),
      signed('POST', '/apps/1/events', { body, secret: 'foreign' }),
      body,
      {},
    );
    const unsigned = await post(
      apiWith(),
      signed('POST', '/apps/1/events', { body }).replace(/&?body_md5=[0-9a-f]+/, ''),
      body,
      {},
    );
    const answers = [await response.json(), await foreign.json(), await unsigned.json()];
    expect(answers).toEqual(Array(3).fill({ error: 'Unauthorized: invalid signature' }));
    for (const answer of answers) expect(JSON.stringify(answer)).not.toMatch(/md5|body|secret/i);
  });

  it('answers an expired timestamp and a foreign auth_key as Pusher does, and a wrong bearer token plainly', async () => {
    const stale = signed('POST', '/apps/1/events', { body, timestamp: Math.floor(Date.now() / 1000) - 601 });
    expect(await (await post(apiWith(), stale, body, {})).json()).toEqual({
      error: 'Unauthorized: timestamp expired (not within 600 seconds of server time)',
    });
    const foreignKey = signed('POST', '/apps/1/events', { body, key: 'off-key' });
    expect(await (await post(apiWith(), foreignKey, body, {})).json()).toEqual({
      error: 'Unauthorized: unknown auth_key',
    });
    const bearer = await post(apiWith(), '/apps/1/events', body, { authorization: 'Bearer app-secre' });
    expect(await bearer.json()).toEqual({ error: 'Unauthorized: invalid token' });
  });

  it('answers 403 to an authenticated request for a disabled app', async () => {
    const response = await post(apiWith(), '/apps/2/events', trigger, { authorization: 'Bearer off-secret' });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: 'App 2 is disabled' });
  });

  it('answers 404 to an unknown app and to unknown routes', async () => {
    const api = apiWith();
    const unknownApp = await post(api, '/apps/9/events', trigger);
    expect(unknownApp.status).toBe(404);
    expect(await unknownApp.json()).toEqual({ error: 'Unknown app 9' });
    expect((await api.request('/nowhere')).status).toBe(404);
    expect((await api.request('/apps/1/nowhere', { headers: bearer })).status).toBe(404);
    expect((await api.request('/apps/1/events', { headers: bearer })).status).toBe(404);
  });

  it('finds apps through a lookup function', async () => {
    const api = createHttpApi({ apps: async (id) => (id === '1' ? app : undefined), backend });
    expect((await post(api, '/apps/1/events', trigger)).status).toBe(200);
    expect((await post(api, '/apps/2/events', trigger)).status).toBe(404);
  });
});

describe('path prefix', () => {
  const api = () => apiWith({ path: '/realtime' });
  const body = JSON.stringify(trigger);

  it('serves every route under the prefix and none outside it', async () => {
    expect(await (await api().request('/realtime/up')).json()).toEqual({ health: 'OK' });
    expect((await api().request('/up')).status).toBe(404);
    expect((await post(api(), '/apps/1/events', trigger)).status).toBe(404);
  });

  it('accepts a signature over the prefixed path and one over the unprefixed path', async () => {
    const prefixed = signed('POST', '/realtime/apps/1/events', { body });
    const unprefixed = signed('POST', '/realtime/apps/1/events', { body, signedPath: '/apps/1/events' });
    expect((await post(api(), prefixed, body, {})).status).toBe(200);
    expect((await post(api(), unprefixed, body, {})).status).toBe(200);
    const elsewhere = signed('POST', '/realtime/apps/1/events', {
      body,
      signedPath: '/elsewhere/apps/1/events',
    });
    expect((await post(api(), elsewhere, body, {})).status).toBe(401);
  });
});

describe('request size', () => {
  it('answers 413 to a body over maxRequestSize', async () => {
    const response = await post(apiWith({ maxRequestSize: 50 }), '/apps/1/events', {
      ...trigger,
      data: 'x'.repeat(60),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: 'Request body is larger than 50 bytes' });
  });

  it('stops reading a streamed body at the limit', async () => {
    let pulled = 0;
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      // Yields to the event loop between chunks, so a reader that never stops times out instead of hanging.
      async pull(controller) {
        await new Promise((resolve) => setImmediate(resolve));
        pulled += 1;
        controller.enqueue(new Uint8Array(1000).fill(32));
      },
      cancel() {
        cancelled = true;
      },
    });
    const init: RequestInit & { duplex: 'half' } = {
      method: 'POST',
      headers: bearer,
      body: endless,
      duplex: 'half',
    };
    const response = await apiWith({ maxRequestSize: 10_000 }).request('/apps/1/events', init);
    expect(response.status).toBe(413);
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThanOrEqual(13);
  });
});

describe('CORS', () => {
  const preflight = (origin: string) =>
    apiWith().request('/apps/1/events', {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization',
      },
    });

  it("allows a preflight from one of the app's origins", async () => {
    for (const origin of ['https://allowed.example', 'https://eu.trusted.example']) {
      const response = await preflight(origin);
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe(origin);
      expect(response.headers.get('access-control-allow-methods')).toContain('POST');
      expect(response.headers.get('access-control-allow-headers')).toBe('authorization');
    }
  });

  it('refuses a preflight from another origin', async () => {
    const response = await preflight('https://evil.example');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('sends the allowed origin on the answer itself, errors included', async () => {
    const headers = { ...bearer, origin: 'https://allowed.example' };
    const ok = await post(apiWith(), '/apps/1/events', trigger, headers);
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://allowed.example');
    const refused = await post(apiWith(), '/apps/1/events', { ...trigger, name: '' }, headers);
    expect(refused.status).toBe(400);
    expect(refused.headers.get('access-control-allow-origin')).toBe('https://allowed.example');
  });
});

describe('rate limits', () => {
  it('are off by default', async () => {
    const api = apiWith();
    const statuses = await Promise.all(
      Array.from({ length: 101 }, () => post(api, '/apps/1/events', trigger)),
    );
    expect(new Set(statuses.map((response) => response.status))).toEqual(new Set([200]));
  });

  it('answer 429 with the rate-limit headers once an app has published its events for the second', async () => {
    const api = apiWith({ rateLimits: { maxBackendEventsPerSecond: 3 } });
    const first = await post(api, '/apps/1/events', trigger);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-remaining')).toBe('2');
    // A batch counts each of its events: two more use the budget up, one more is refused.
    const batch = { batch: [trigger, trigger] };
    expect((await post(api, '/apps/1/batch_events', batch)).status).toBe(200);
    const refused = await post(api, '/apps/1/events', trigger);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('3');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toEqual({ error: expect.stringContaining('limit is 3 per second') });
    expect(backend.published).toHaveLength(3);
  });

  it('count read requests apart from events, and let an app set its own limit', async () => {
    const api = apiWith({
      rateLimits: { maxReadRequestsPerSecond: 1 },
      apps: [{ ...app, maxReadRequestsPerSecond: 2 }],
    });
    expect((await api.request('/apps/1/channels', { headers: bearer })).status).toBe(200);
    expect((await api.request('/apps/1/channels/a', { headers: bearer })).status).toBe(200);
    expect((await post(api, '/apps/1/events', trigger)).status).toBe(200);
    const refused = await api.request('/apps/1/channels', { headers: bearer });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('2');
  });

  it('take their counters from the store option', async () => {
    const store = vi.fn<RateLimitStore>(memoryRateLimitStore);
    const api = apiWith({ rateLimits: { maxBackendEventsPerSecond: 5, store } });
    await post(api, '/apps/1/events', trigger);
    await post(api, '/apps/1/events', trigger);
    expect(store).toHaveBeenCalledTimes(1);
    expect(store).toHaveBeenCalledWith(expect.objectContaining({ points: 5, duration: 1 }));
  });
});

describe('observing requests', () => {
  it('reports every answered request to onRequest', async () => {
    const seen: HttpApiRequest[] = [];
    const api = apiWith({ onRequest: (request) => seen.push(request) });
    await post(api, '/apps/1/events', trigger);
    await post(api, '/apps/1/events', trigger, {});
    await api.request('/up');
    expect(
      seen.map(({ appId, method, path, route, status }) => ({ appId, method, path, route, status })),
    ).toEqual([
      { appId: '1', method: 'POST', path: '/apps/1/events', route: '/apps/:appId/events', status: 200 },
      { appId: '1', method: 'POST', path: '/apps/1/events', route: '/apps/:appId/events', status: 401 },
      { appId: undefined, method: 'GET', path: '/up', route: '/up', status: 200 },
    ]);
    expect(seen[0]?.requestBytes).toBe(JSON.stringify(trigger).length);
    expect(seen[0]?.responseBytes).toBe(2);
  });

  it('answers 500 and logs when the backend fails', async () => {
    const logger: Logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    const failing = { ...backend, publish: () => Promise.reject(new Error('down')) };
    const api = createHttpApi({ apps: [app], backend: failing, logger });
    const response = await post(api, '/apps/1/events', trigger);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: 'Internal server error' });
    expect(logger.error).toHaveBeenCalledWith('request failed', expect.objectContaining({ appId: '1' }));
  });
});
