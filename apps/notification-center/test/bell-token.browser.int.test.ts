import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import type { Browser, Request as PageRequest } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installedBellAssets } from '../src/bell-assets.js';
import { configFromEnv } from '../src/config.js';
import { launchChromium, openPage, type RunningCenter, startCenter } from './browser.js';
import { type RealtimeProcess, startRealtime, startTogether } from './realtime-process.js';
import { type Listening, listen, startTokenService, tokenFor } from './token-service.js';

// A host page on one origin embeds the bell; the notification service runs on another. The bell signs its
// requests with a user token the host's backend issued (`authToken` → `Authorization: Bearer`), with no cookie
// and no CSRF token, to the JSON API and to /broadcasting/auth, and gets live pushes through a real Herald
// real-time server.
//
// The service is composed in the test from the real parts (./token-service.ts), with real signed user tokens.

const APP = { id: 'bell-token', key: 'bell-token-key', secret: 'bell-token-secret' };

describe('a token-authenticated bell on a page of another origin', () => {
  let token = '';
  let browser: Browser;
  let realtime: RealtimeProcess;
  let running: RunningCenter;
  let host: Listening;
  let service: Listening;

  beforeAll(async () => {
    [browser, realtime] = await startTogether([launchChromium(), startRealtime(APP)]);
    const env = {
      REALTIME_URL: `http://127.0.0.1:${realtime.port}`,
      REALTIME_APP_ID: APP.id,
      REALTIME_APP_KEY: APP.key,
      REALTIME_APP_SECRET: APP.secret,
    };
    running = await startCenter(env);
    const loaded = configFromEnv(env);
    if (!loaded.ok || !loaded.config.realtime) throw new Error('no real-time config');
    const realtimeTarget = loaded.config.realtime;

    // The host: its own page, with the bell's built files served from its own origin.
    const hostApp = new Hono();
    host = await listen(hostApp);
    const assets = installedBellAssets();
    if (!assets) throw new Error('build @herald/notification-bell first');

    // The service, on another origin, allowing the host's.
    service = await startTokenService({
      store: running.center.store,
      allowOrigin: host.origin,
      realtime: realtimeTarget,
    });

    token = await tokenFor('alice', 'Alice');
    const options = {
      apiUrl: `${service.origin}/notification/notifications/unread.json`,
      authToken: token,
      userId: 'alice',
      enablePolling: false,
      broadcasting: {
        broadcaster: 'wsproto',
        wsprotoKey: APP.key,
        wsprotoHost: '127.0.0.1',
        wsprotoPort: realtime.port,
        authEndpoint: `${service.origin}/broadcasting/auth`,
      },
    };
    hostApp.use(
      '/bell/*',
      serveStatic({ root: assets, rewriteRequestPath: (path) => path.replace(/^\/bell/, '') }),
    );
    hostApp.get('/', (c) =>
      c.html(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="/bell/notification-bell.css"></head>
<body><header style="display:flex;justify-content:flex-end;padding:8px 16px">
<div data-notification-bell data-options='${JSON.stringify(options)}'></div></header>
<script type="module" src="/bell/notification-bell.js"></script></body></html>`),
    );
  });

  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await service?.stop();
    await running?.stop();
    await realtime?.stop();
  });

  it('reads, writes and receives live with the token alone, across origins, loading pusher-js only then', async () => {
    const { context, page, errors } = await openPage(browser);
    const toService: PageRequest[] = [];
    const scripts: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(service.origin)) toService.push(request);
      if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
    });

    await page.goto(`${host.origin}/`);
    await page.locator('.herald-bell__button').click();
    await page.locator('.herald-bell__state--empty').waitFor();
    await page.waitForFunction(
      () =>
        (
          window as unknown as { HeraldNotificationBell: { notificationStore(): { connection: string } } }
        ).HeraldNotificationBell.notificationStore().connection === 'live',
    );
    // Broadcasting is on here: the live chunk (with pusher-js) was loaded, after the bell's own script.
    expect(scripts.sort()).toEqual([
      '/bell/notification-bell.js',
      '/bell/standalone/authorise.js',
      '/bell/standalone/wsproto.js',
    ]);

    await running.center.notifier.send(
      { type: 'User', id: 'alice' },
      {
        type: 'DeployFinished',
        via: () => ['database', 'broadcast'],
        toDatabase: () => ({ title: 'Deploy finished', message: 'v3 is live' }),
      },
    );
    const item = page.locator('.herald-bell__item', { hasText: 'Deploy finished' });
    await item.waitFor();
    expect(await page.locator('.herald-bell__badge').textContent()).toBe('1');

    await item.locator('.herald-bell__item-main').click();
    await expect.poll(() => page.locator('.herald-bell__badge').isVisible()).toBe(false);
    expect(await running.center.store.unreadCount({ type: 'User', id: 'alice' })).toBe(0);

    // Every request to the service carried the token, no CSRF token, and no cookie.
    const sent = toService.filter((request) => request.method() !== 'OPTIONS');
    expect(sent.map((request) => `${request.method()} ${new URL(request.url()).pathname}`)).toEqual(
      expect.arrayContaining([
        'GET /notification/notifications.json',
        'POST /broadcasting/auth',
        'PATCH /notification/notifications/' +
          (await item.getAttribute('data-notification-id')) +
          '/read.json',
      ]),
    );
    for (const request of sent) {
      const headers = await request.allHeaders();
      expect(headers.authorization).toBe(`Bearer ${token}`);
      expect(headers['x-csrf-token']).toBeUndefined();
      expect(headers.cookie).toBeUndefined();
    }
    expect(errors).toEqual([]);
    await context.close();
  });
});
