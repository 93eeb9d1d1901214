import { signRequest } from '@herald/protocol-core';
import { describe, expect, it } from 'vitest';
import type { ApiApp } from './api-app.js';
import { createFastTrigger, type RawRestRequest } from './fast-trigger.js';
import { createHttpApi, type HttpApiOptions } from './http-api.js';
import { memoryRateLimitStore } from './rate-limits.js';
import { createMemoryBackend } from './testing.js';

const app: ApiApp = { id: '1', key: 'k', secret: 's', enabled: true, allowedOrigins: ['https://ok.example'] };
const off: ApiApp = { id: '2', key: 'k2', secret: 's2', enabled: false, allowedOrigins: ['*'] };
const encoder = new TextEncoder();

interface Case {
  readonly title: string;
  readonly path?: string;
  readonly query?: string;
  readonly headers?: Record<string, string>;
  readonly body: unknown;
}

const bearer = { authorization: 'Bearer s', 'content-type': 'application/json' };
const event = { name: 'e', channel: 'c', data: '{"n":1}' };

function signedQuery(path: string, body: string, secret = 's'): string {
  return new URLSearchParams(signRequest({ key: 'k', secret }, { method: 'POST', path, body })).toString();
}

const cases: Case[] = [
  { title: 'a trigger with a Bearer secret', headers: bearer, body: event },
  {
    title: 'a trigger to many channels with socket_id',
    headers: bearer,
    body: { ...event, channel: undefined, channels: ['a', 'b'], socket_id: '1.2' },
  },
  {
    title: 'a trigger from an allowed origin',
    headers: { ...bearer, origin: 'https://ok.example' },
    body: event,
  },
  {
    title: 'a trigger from another origin',
    headers: { ...bearer, origin: 'https://evil.example' },
    body: event,
  },
  { title: 'a signed trigger', query: signedQuery('/apps/1/events', JSON.stringify(event)), body: event },
  {
    title: 'a trigger signed with another secret',
    query: signedQuery('/apps/1/events', JSON.stringify(event), 'x'),
    body: event,
  },
  { title: 'a wrong Bearer secret', headers: { ...bearer, authorization: 'Bearer nope' }, body: event },
  { title: 'no auth at all', headers: {}, body: event },
  { title: 'an unknown app', path: '/apps/9/events', headers: bearer, body: event },
  {
    title: 'a disabled app',
    path: '/apps/2/events',
    headers: { ...bearer, authorization: 'Bearer s2' },
    body: event,
  },
  { title: 'a body that is not JSON', headers: bearer, body: '{nope' },
  { title: 'both channel and channels', headers: bearer, body: { ...event, channels: ['a'] } },
  { title: 'no channel', headers: bearer, body: { name: 'e', data: '1' } },
  { title: 'data that is not a string', headers: bearer, body: { ...event, data: { n: 1 } } },
  { title: 'an empty name', headers: bearer, body: { ...event, name: '' } },
  { title: 'a bad socket_id', headers: bearer, body: { ...event, socket_id: 'abc' } },
  { title: 'info asked for', headers: bearer, body: { ...event, info: 'subscription_count' } },
  {
    title: 'too many channels',
    headers: bearer,
    body: { ...event, channel: undefined, channels: Array.from({ length: 101 }, (_, i) => `c${i}`) },
  },
  { title: 'data over the limit', headers: bearer, body: { ...event, data: 'x'.repeat(11 * 1024) } },
  { title: 'a bad channel name', headers: bearer, body: { ...event, channel: 'bad name!' } },
];

function bodyText(body: unknown): string {
  return typeof body === 'string' ? body : JSON.stringify(body);
}

describe('createFastTrigger', () => {
  it.each(cases.map((entry) => [entry.title, entry] as const))(
    'answers %s exactly as the full API does, or leaves it to the full API',
    async (_title, entry) => {
      const path = entry.path ?? '/apps/1/events';
      const text = bodyText(entry.body);
      const fullBackend = createMemoryBackend();
      const full = await createHttpApi({ apps: [app, off], backend: fullBackend }).request(
        `${path}${entry.query ? `?${entry.query}` : ''}`,
        { method: 'POST', headers: entry.headers ?? {}, body: text },
      );
      const fastBackend = createMemoryBackend();
      const fast = createFastTrigger({ apps: [app, off], backend: fastBackend });
      const request: RawRestRequest = {
        method: 'POST',
        path,
        query: entry.query ?? '',
        headers: Object.fromEntries(
          Object.entries(entry.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]),
        ),
        body: encoder.encode(text),
      };
      const answer = await fast?.(request);
      const asksInfo = typeof entry.body === 'object' && entry.body !== null && 'info' in entry.body;
      // Every plain success is answered on the fast path; only errors and `info` go the long way.
      if (full.status === 200 && !asksInfo) expect(answer).toBeDefined();
      if (answer === undefined) {
        // Left to the full API: nothing was published on the way.
        expect(fastBackend.published).toEqual([]);
        return;
      }
      expect(answer.status).toBe(full.status);
      expect(answer.body).toBe(await full.text());
      expect(fastBackend.published).toEqual(fullBackend.published);
      expect(answer.headers['Access-Control-Allow-Origin'] ?? null).toBe(
        full.headers.get('access-control-allow-origin'),
      );
    },
  );

  it('answers the well-formed, authorised triggers itself', async () => {
    const fast = createFastTrigger({ apps: [app], backend: createMemoryBackend() });
    const answer = await fast?.({
      method: 'POST',
      path: '/apps/1/events',
      query: '',
      headers: { authorization: 'Bearer s' },
      body: encoder.encode(JSON.stringify(event)),
    });
    expect(answer).toMatchObject({ status: 200, body: '{}' });
  });

  it('honours the path prefix, signed over either form of the path', async () => {
    const options: HttpApiOptions = { apps: [app], backend: createMemoryBackend(), path: '/rt' };
    const fast = createFastTrigger(options);
    const text = JSON.stringify(event);
    for (const signedPath of ['/rt/apps/1/events', '/apps/1/events']) {
      const answer = await fast?.({
        method: 'POST',
        path: '/rt/apps/1/events',
        query: signedQuery(signedPath, text),
        headers: {},
        body: encoder.encode(text),
      });
      expect(answer?.status).toBe(200);
    }
    expect(
      await fast?.({
        method: 'POST',
        path: '/apps/1/events',
        query: '',
        headers: { authorization: 'Bearer s' },
        body: encoder.encode(text),
      }),
    ).toBeUndefined();
  });

  it('is off when rate limits are on, so every call is counted by the full API', () => {
    const rateLimits = { maxBackendEventsPerSecond: 1, store: memoryRateLimitStore };
    expect(createFastTrigger({ apps: [app], backend: createMemoryBackend(), rateLimits })).toBeUndefined();
  });

  it('answers from a synchronous lookup function, so apps can change while it runs', async () => {
    const apps = new Map<string, ApiApp>();
    const fast = createFastTrigger({ apps: (id) => apps.get(id), backend: createMemoryBackend() });
    const request = {
      method: 'POST',
      path: '/apps/1/events',
      query: '',
      headers: { authorization: 'Bearer s' },
      body: encoder.encode(JSON.stringify(event)),
    };
    expect(await fast?.(request)).toBeUndefined();
    apps.set('1', app);
    expect(await fast?.(request)).toMatchObject({ status: 200, body: '{}' });
  });
});
