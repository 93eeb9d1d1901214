import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signUserToken } from '@herald/notifications';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './browser.js';
import { type RunningCenter, startCenter } from './center-server.js';
import { type RealtimeProcess, startRealtime, startTogether } from './realtime-process.js';

// A host page on its own origin embeds the bell, loading the bell's files from the notification service,
// and hands it a user token its backend signed. A notification sent through the send API reaches the bell
// live, without a reload: the bell authenticates to the JSON API and /broadcasting/auth with the token alone.

const TOKEN_SECRET = 'host-backend-user-token-secret-0123456789';
const API_SECRET = 'center-send-secret-0123456789abcdef';
const APP = { id: 'token-bell', key: 'token-bell-key', secret: 'token-bell-secret' };

describe('a token-authenticated bell on another origin, fed by the send API', () => {
  let running: RunningCenter;
  let realtime: RealtimeProcess;
  let host: Server;
  let hostOrigin: string;
  let browser: Browser;
  let page = '';

  beforeAll(async () => {
    host = createServer((_request, response) =>
      response.writeHead(200, { 'content-type': 'text/html' }).end(page),
    );
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    hostOrigin = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
    [realtime, browser] = await startTogether([startRealtime(APP), launchChromium()]);
    running = await startCenter('pglite', {
      NOTIFICATION_USER_TOKEN_SECRET: TOKEN_SECRET,
      NOTIFICATION_API_SECRET: API_SECRET,
      NOTIFICATION_CORS_ORIGINS: hostOrigin,
      REALTIME_URL: `http://127.0.0.1:${realtime.port}`,
      REALTIME_APP_ID: APP.id,
      REALTIME_APP_KEY: APP.key,
      REALTIME_APP_SECRET: APP.secret,
    });
    // What the host's backend does for its signed-in user.
    const token = await signUserToken({ secret: TOKEN_SECRET, userId: 'alice', expiresIn: '10m' });
    const options = {
      apiUrl: `${running.base}/notification/notifications/unread.json`,
      authToken: token,
      userId: 'alice',
      enablePolling: false,
      broadcasting: {
        broadcaster: 'wsproto',
        wsprotoKey: APP.key,
        wsprotoHost: '127.0.0.1',
        wsprotoPort: realtime.port,
        authEndpoint: `${running.base}/broadcasting/auth`,
      },
    };
    const assets = `${running.base}/assets/notification-bell`;
    page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets}/notification-bell.css"></head>
<body><div data-notification-bell data-options='${JSON.stringify(options)}'></div>
<script type="module" src="${assets}/notification-bell.js"></script></body></html>`;
  });
  afterAll(async () => {
    await browser?.close();
    await running?.stop();
    await realtime?.stop();
    await new Promise((resolve) => host?.close(resolve));
  });

  it('shows a notification sent through the send API without a reload', async () => {
    const tab = await browser.newPage();
    const errors: string[] = [];
    tab.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    tab.on('pageerror', (error) => errors.push(String(error)));
    const serviceCalls: Array<{ url: string; bearer: boolean; csrf: boolean }> = [];
    tab.on('request', (request) => {
      if (
        !request.url().startsWith(`${running.base}/notification/`) &&
        !request.url().endsWith('/broadcasting/auth')
      )
        return;
      const headers = request.headers();
      serviceCalls.push({
        url: request.url(),
        bearer: headers.authorization?.startsWith('Bearer ') ?? false,
        csrf: headers['x-csrf-token'] !== undefined,
      });
    });
    const subscribed = tab.waitForResponse(
      (response) => response.url() === `${running.base}/broadcasting/auth` && response.status() === 200,
      { timeout: 30_000 },
    );
    await tab.goto(hostOrigin);
    await subscribed;

    const sent = await fetch(`${running.base}/notification/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_SECRET}` },
      body: JSON.stringify({
        recipients: ['alice'],
        type: 'DeployFinished',
        data: { title: 'Deploy finished', message: 'v1.2.3 is live' },
        channels: ['database', 'broadcast'],
      }),
    });
    expect(sent.status).toBe(200);

    await expect
      .poll(async () => (await tab.locator('[data-notification-bell]').textContent()) ?? '', {
        timeout: 30_000,
      })
      .toContain('Deploy finished');
    expect(serviceCalls.length).toBeGreaterThan(0);
    expect(serviceCalls.every((call) => call.bearer && !call.csrf)).toBe(true);
    expect(errors).toEqual([]);
  });
});
