import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentNotificationLogger } from '@herald/notifications';
import { type ServerType, serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNotificationCenter, type NotificationCenter } from '../src/center.js';
import { configFromEnv } from '../src/config.js';
import { connectPusher, type PusherClient } from './pusher-client.js';
import { type RealtimeProcess, startRealtime } from './realtime-process.js';

const APP = { id: 'nc-test', key: 'nc-test-key', secret: 'nc-test-secret' };

interface Received {
  event: string;
  data: Record<string, unknown>;
}

describe('database + broadcast with a real Herald server and pusher-js', () => {
  let realtime: RealtimeProcess;
  let center: NotificationCenter;
  let server: ServerType;
  let base: string;
  let dataDir: string;
  let pusher: PusherClient | undefined;

  beforeAll(async () => {
    realtime = await startRealtime(APP);
    dataDir = await mkdtemp(join(tmpdir(), 'herald-nc-'));
    const loaded = configFromEnv({
      NOTIFICATION_PGLITE_DIR: dataDir,
      REALTIME_URL: `http://127.0.0.1:${realtime.port}`,
      REALTIME_APP_ID: APP.id,
      REALTIME_APP_KEY: APP.key,
      REALTIME_APP_SECRET: APP.secret,
    });
    if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
    center = await createNotificationCenter(loaded.config, silentNotificationLogger);
    server = serve({ fetch: center.app.fetch, hostname: '127.0.0.1', port: 0 });
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    pusher?.disconnect();
    await new Promise((resolve) => server.close(resolve));
    await center.close();
    await realtime.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** Signs in through the demo login and reads the CSRF token from the page's meta tag, as the bell does. */
  async function signIn(user: string) {
    const login = await fetch(`${base}/login`, {
      method: 'POST',
      body: new URLSearchParams({ user }),
      redirect: 'manual',
    });
    expect(login.status).toBe(303);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const html = await (await fetch(`${base}/`, { headers: { cookie } })).text();
    const csrf = /<meta name="csrfToken" content="([^"]+)">/.exec(html)?.[1] as string;
    expect(csrf).toMatch(/^[0-9a-f]{64}$/);
    return { cookie, csrf };
  }

  it('delivers a sent notification, and then its mark-read, to the user’s private channel', async () => {
    const { cookie, csrf } = await signIn('alice');
    const received: Received[] = [];
    const authCalls: number[] = [];
    pusher = connectPusher({
      key: APP.key,
      port: realtime.port,
      authEndpoint: `${base}/broadcasting/auth`,
      headers: { cookie, 'x-csrf-token': csrf },
      onAuth: (status) => authCalls.push(status),
    });

    const own = pusher.subscribe('private-User.alice');
    await new Promise<void>((resolve, reject) => {
      own.bind('pusher:subscription_succeeded', () => resolve());
      own.bind('pusher:subscription_error', (error: unknown) => reject(new Error(JSON.stringify(error))));
    });
    own.bind_global((event: string, data: Record<string, unknown>) => {
      if (!event.startsWith('pusher:')) received.push({ event, data });
    });

    const other = pusher.subscribe('private-User.bob');
    const refused = await new Promise<unknown>((resolve) => other.bind('pusher:subscription_error', resolve));
    expect(refused).toBeDefined();
    expect(authCalls).toEqual([200, 403]);

    const sent = await fetch(`${base}/demo/send`, {
      method: 'POST',
      headers: { cookie },
      body: new URLSearchParams({ _csrf: csrf, title: 'Deploy finished', message: 'v1.2.3 is live' }),
      redirect: 'manual',
    });
    expect(sent.status).toBe(303);

    const list = (await (
      await fetch(`${base}/notification/notifications.json`, { headers: { cookie } })
    ).json()) as { data: Array<{ id: string }>; meta: { unread_count: number } };
    expect(list.meta.unread_count).toBe(1);
    const stored = list.data[0] as { id: string };

    await expect.poll(() => received.length, { timeout: 5000 }).toBeGreaterThanOrEqual(1);
    expect(received[0]).toEqual({
      event: 'notification.created',
      data: expect.objectContaining({
        id: stored.id,
        type: 'DemoNotification',
        notifiable_type: 'User',
        notifiable_id: 'alice',
        data: { title: 'Deploy finished', message: 'v1.2.3 is live', icon: 'bell' },
        read_at: null,
      }),
    });

    const read = await fetch(`${base}/notification/notifications/${stored.id}/read.json`, {
      method: 'PATCH',
      headers: { cookie, 'x-csrf-token': csrf },
    });
    expect(read.status).toBe(200);
    await expect.poll(() => received.length, { timeout: 5000 }).toBe(2);
    expect(received[1]).toEqual({
      event: 'notification.marked-read',
      data: { notification_id: stored.id, unread_count: 0 },
    });
  });

  it('refuses /broadcasting/auth without a session or CSRF token, and bad socket ids', async () => {
    const { cookie, csrf } = await signIn('bob');
    const auth = (headers: Record<string, string>, socketId = '123.456') =>
      fetch(`${base}/broadcasting/auth`, {
        method: 'POST',
        headers,
        body: new URLSearchParams({ socket_id: socketId, channel_name: 'private-User.bob' }),
      });
    expect((await auth({})).status).toBe(401);
    expect((await auth({ cookie })).status).toBe(403);
    expect((await auth({ cookie, 'x-csrf-token': csrf }, 'nope')).status).toBe(422);
    const presence = await fetch(`${base}/broadcasting/auth`, {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ socket_id: '1.2', channel_name: 'presence-User.bob' }),
    });
    expect(await presence.json()).toEqual({
      auth: expect.stringMatching(/^nc-test-key:[0-9a-f]{64}$/),
      channel_data: JSON.stringify({ user_id: 'bob', user_info: { name: 'Bob' } }),
    });
  });
});
