import { generateKeyPairSync } from 'node:crypto';
import { signUserToken } from '@herald/notifications';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningCenter, startCenter } from './center-server.js';

const TOKEN_SECRET = 'host-backend-user-token-secret-0123456789';
const API_SECRET = 'center-send-secret-0123456789abcdef';
const { privateKey, publicKey } = generateKeyPairSync('ed25519');

describe('user tokens against the notification center', () => {
  let running: RunningCenter;
  beforeAll(async () => {
    running = await startCenter('pglite', {
      NOTIFICATION_USER_TOKEN_SECRET: TOKEN_SECRET,
      // As an operator would paste it into one line of an env file.
      NOTIFICATION_USER_TOKEN_PUBLIC_KEY: publicKey
        .export({ type: 'spki', format: 'pem' })
        .toString()
        .replaceAll('\n', '\\n'),
      NOTIFICATION_USER_TOKEN_ISSUER: 'https://host.example',
      NOTIFICATION_API_SECRET: API_SECRET,
      REALTIME_URL: 'http://127.0.0.1:9',
      REALTIME_APP_ID: 'app',
      REALTIME_APP_KEY: 'key',
      REALTIME_APP_SECRET: 'secret',
    });
    const sent = await fetch(`${running.base}/notification/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_SECRET}` },
      body: JSON.stringify({
        recipients: ['alice', 'bob'],
        type: 'Hello',
        data: { title: 'Hello', message: 'there' },
        channels: ['database'],
      }),
    });
    expect(sent.status).toBe(200);
  });
  afterAll(() => running.stop());

  const tokenFor = (userId: string) =>
    signUserToken({ secret: TOKEN_SECRET, userId, expiresIn: '5m', issuer: 'https://host.example' });
  const api = (path: string, token: string, init: RequestInit = {}) =>
    fetch(`${running.base}/notification/notifications${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, ...init.headers },
    });

  it('reads and changes only the token’s user’s notifications, writing without CSRF', async () => {
    const alice = await tokenFor('alice');
    const list = (await (await api('.json', alice)).json()) as {
      data: Array<{ id: string; notifiable_id: string }>;
    };
    expect(list.data.map((r) => r.notifiable_id)).toEqual(['alice']);
    const bobs = await running.center.store.list({ type: 'User', id: 'bob' }, { page: 1, limit: 5 });
    const bobId = bobs.records[0]?.id as string;
    expect((await api(`/${bobId}.json`, alice)).status).toBe(404);
    expect((await api(`/${bobId}/read.json`, alice, { method: 'PATCH' })).status).toBe(404);
    expect((await api(`/${bobId}.json`, alice, { method: 'DELETE' })).status).toBe(404);
    expect(await running.center.store.unreadCount({ type: 'User', id: 'bob' })).toBe(1);

    const own = list.data[0]?.id as string;
    const read = await api(`/${own}/read.json`, alice, { method: 'PATCH' });
    expect(read.status).toBe(200);
  });

  it('accepts an EdDSA token checked with the configured public key, and checks the issuer', async () => {
    const eddsa = await signUserToken({ privateKey, userId: 'alice', issuer: 'https://host.example' });
    expect((await api('.json', eddsa)).status).toBe(200);
    const wrongIssuer = await signUserToken({ secret: TOKEN_SECRET, userId: 'alice', issuer: 'elsewhere' });
    expect((await api('.json', wrongIssuer)).status).toBe(401);
  });

  it('signs /broadcasting/auth only for the token’s own channel, without CSRF', async () => {
    const alice = await tokenFor('alice');
    const auth = (channel: string, token: string) =>
      fetch(`${running.base}/broadcasting/auth`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: new URLSearchParams({ socket_id: '123.456', channel_name: channel }),
      });
    const own = await auth('private-User.alice', alice);
    expect(own.status).toBe(200);
    expect(await own.json()).toEqual({ auth: expect.stringMatching(/^key:[0-9a-f]{64}$/) });
    const other = await auth('private-User.bob', alice);
    expect(other.status).toBe(403);
    expect(await other.json()).toMatchObject({ error: { code: 'forbidden' } });
    expect((await auth('private-User.alice', 'not-a-token')).status).toBe(401);
  });

  it('gives the signed-in demo user a token the API accepts', async () => {
    const login = await fetch(`${running.base}/login`, {
      method: 'POST',
      body: new URLSearchParams({ user: 'bob' }),
      redirect: 'manual',
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
    expect((await fetch(`${running.base}/demo/token.json`)).status).toBe(401);
    const { token, expires_in } = (await (
      await fetch(`${running.base}/demo/token.json`, { headers: { cookie } })
    ).json()) as { token: string; expires_in: number };
    expect(expires_in).toBe(900);
    const list = (await (await api('.json', token)).json()) as { data: Array<{ notifiable_id: string }> };
    expect(list.data.map((r) => r.notifiable_id)).toEqual(['bob']);

    const bellToken = async (path: string) => {
      const page = await (await fetch(`${running.base}${path}`, { headers: { cookie } })).text();
      const options = /data-options="([^"]+)"/.exec(page)?.[1]?.replaceAll('&quot;', '"') ?? '{}';
      return (JSON.parse(options) as { authToken?: string }).authToken;
    };
    // The plain demo page keeps the cookie session and its CSRF token; `?auth=token` hands the bell a token.
    expect(await bellToken('/')).toBeUndefined();
    const rendered = (await bellToken('/?auth=token')) as string;
    expect((await api('.json', rendered)).status).toBe(200);
  });
});
