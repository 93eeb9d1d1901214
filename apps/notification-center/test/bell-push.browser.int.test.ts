import { createNotificationClient } from '@herald/notifications';
import { dropSchema, POSTGRES_URL, randomSchema, until } from '@herald/test-kit';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PushServiceDouble,
  type SubscriptionJson,
  startPushServiceDouble,
} from '../../../packages/web-push-channel/test/push-service-double.js';
import { offScreen, seriousViolations, settled } from './bell-audit.js';
import { launchChromium, openPage, type RunningCenter, startCenter } from './browser.js';
import { TOKEN_SECRET, tokenFor } from './token-service.js';

// The bell's "Turn on browser notifications" control in headless Chromium, against the real notification center
// (its service worker, push routes and the bell's built files, all on one origin as browsers require).
//
// What cannot run here, and what stands in for it: Chromium subscribes through Google's push service (FCM),
// which is not reachable (and --disable-background-networking keeps Chromium from trying), so the page's
// `PushManager.prototype.subscribe` is replaced by an init script that records the options it was called with
// and answers a subscription the TEST provides (`getSubscription` then answers it, and its `unsubscribe` is
// counted: the browser itself has no subscription to give), made by the push service double
// (packages/web-push-channel/test/push-service-double.ts, an RFC 8030/8291/8292 double). Everything else is the
// browser's own: the permission (granted or denied through the browser), the worker's registration and
// activation, and the requests to the center's API. A push to that subscription then goes out through the
// center and is decrypted by the double; its payload is handed to the registered worker through the DevTools
// protocol (ServiceWorker.deliverPushMessage), and the worker shows it. Clicking a system notification cannot be
// driven here: the worker's click handler (open `url`) is not exercised.

const API_SECRET = 'bell-push-tests-api-secret-01';
// PostgreSQL rather than PGlite: it starts in a moment on a busy machine.
const SCHEMA = randomSchema('herald_nc_bell_push');
const RECORD_PUSH = `
  window.__push = { permissionAsks: 0, subscribeCalls: [], unsubscribeCalls: 0 };
  let current = null;
  const ask = Notification.requestPermission.bind(Notification);
  Notification.requestPermission = (...args) => { window.__push.permissionAsks += 1; return ask(...args); };
  PushManager.prototype.subscribe = async function (options) {
    const bytes = new Uint8Array(options.applicationServerKey);
    const key = btoa(String.fromCharCode(...bytes)).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
    window.__push.subscribeCalls.push({ userVisibleOnly: options.userVisibleOnly, key });
    const json = window.__testSubscription;
    const unsubscribe = async () => { window.__push.unsubscribeCalls += 1; current = null; return true; };
    current = { endpoint: json.endpoint, toJSON: () => json, unsubscribe };
    return current;
  };
  PushManager.prototype.getSubscription = async function () { return current; };
`;

type Recorded = {
  permissionAsks: number;
  subscribeCalls: Array<{ userVisibleOnly: boolean; key: string }>;
  unsubscribeCalls: number;
};

describe('the bell’s browser notifications control', () => {
  let browser: Browser;
  let service: PushServiceDouble;
  let running: RunningCenter;
  let publicKey: string;

  beforeAll(async () => {
    [browser, service] = await Promise.all([launchChromium(), startPushServiceDouble()]);
    running = await startCenter(
      {
        NOTIFICATION_USER_TOKEN_SECRET: TOKEN_SECRET,
        NOTIFICATION_API_SECRET: API_SECRET,
        NOTIFICATION_PUSH_CA_FILE: service.caFile,
        // The double listens on loopback, which no default push service host is.
        NOTIFICATION_PUSH_ENDPOINTS: '127.0.0.1',
        DATABASE_URL: POSTGRES_URL,
        NOTIFICATION_DATABASE_SCHEMA: SCHEMA,
      },
      (app) => {
        app.get('/push-page/:user', async (c) => {
          const options = {
            apiUrl: '/notification/notifications/unread.json',
            authToken: await tokenFor(c.req.param('user')),
            enablePolling: false,
          };
          return c.html(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Push</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="/assets/notification-bell/notification-bell.css"></head>
<body><header style="display:flex;justify-content:flex-end;padding:8px 16px">
<div data-notification-bell data-options='${JSON.stringify(options)}'></div></header>
<script type="module" src="/assets/notification-bell/notification-bell.js"></script></body></html>`);
        });
        return app;
      },
    );
    const key = await fetch(`${running.base}/notification/push/key.json`, {
      headers: { authorization: `Bearer ${await tokenFor('anyone')}` },
    });
    publicKey = ((await key.json()) as { data: { public_key: string } }).data.public_key;
  });

  afterAll(async () => {
    await browser?.close();
    await running?.stop();
    await service?.stop();
    await dropSchema(SCHEMA);
  });

  const recorded = (page: Page) => page.evaluate(() => (window as unknown as { __push: Recorded }).__push);

  async function openBell(user: string, prepare?: (page: Page) => Promise<void>) {
    const opened = await openPage(browser);
    await opened.page.addInitScript(RECORD_PUSH);
    await prepare?.(opened.page);
    await opened.page.goto(`${running.base}/push-page/${user}`);
    await opened.page.locator('.herald-bell__button').click();
    await opened.page.locator('.herald-bell__state--empty').waitFor();
    return opened;
  }

  it('asks permission only on click, then registers the worker, subscribes with the VAPID key and saves', async () => {
    const subscription: SubscriptionJson = service.subscribe(publicKey);
    const { context, page, errors } = await openBell('ada', async (page) => {
      await page.context().grantPermissions(['notifications'], { origin: running.base });
      await page.addInitScript((json) => {
        (window as unknown as { __testSubscription: unknown }).__testSubscription = json;
      }, subscription);
    });
    const control = page.locator('.herald-bell__push-button');
    await control.waitFor();
    expect(await control.textContent()).toBe('Turn on browser notifications');
    expect((await recorded(page)).permissionAsks).toBe(0);

    await control.click();
    const on = page.locator('.herald-bell__push-on');
    await on.waitFor();
    expect(await on.textContent()).toBe('Browser notifications are on');
    expect(await control.isVisible()).toBe(false);
    expect(await recorded(page)).toEqual({
      permissionAsks: 1,
      subscribeCalls: [{ userVisibleOnly: true, key: publicKey }],
      unsubscribeCalls: 0,
    });
    const workers = await page.evaluate(async () =>
      (await navigator.serviceWorker.getRegistrations()).map((registration) => ({
        script: registration.active?.scriptURL,
        scope: registration.scope,
      })),
    );
    expect(workers).toEqual([
      { script: `${running.base}/notification/sw.js`, scope: `${running.base}/notification/` },
    ]);

    // The subscription the page posted is Ada's now: a push to her reaches it through the double.
    const saved = await fetch(`${running.base}/notification/push/subscriptions.json`, {
      headers: { authorization: `Bearer ${await tokenFor('ada')}` },
    });
    expect(((await saved.json()) as { data: Array<{ endpoint: string }> }).data).toMatchObject([
      { endpoint: subscription.endpoint },
    ]);
    await createNotificationClient({ url: running.base, secret: API_SECRET }).send({
      recipients: ['ada'],
      type: 'Mentioned',
      data: { title: 'Pushed', message: 'to the browser', action_url: 'https://app.example/pushed' },
      channels: ['push'],
    });
    await until(() => service.received.some((push) => push.endpoint === subscription.endpoint), {
      what: 'the push to the saved subscription',
      limitMs: 30_000,
    });

    // The worker shows what the center sent: the double's decrypted payload, handed to the registered worker as
    // a push message through the DevTools protocol (the step a push service and Chromium's GCM client would do).
    const pushed = service.received.find((push) => push.endpoint === subscription.endpoint);
    const cdp = await context.newCDPSession(page);
    const registrations: Array<{ registrationId: string; scopeURL: string }> = [];
    cdp.on('ServiceWorker.workerRegistrationUpdated', (event) => registrations.push(...event.registrations));
    await cdp.send('ServiceWorker.enable');
    await until(() => registrations.some((r) => r.scopeURL === `${running.base}/notification/`), {
      what: 'the worker registration in DevTools',
      limitMs: 30_000,
    });
    await cdp.send('ServiceWorker.deliverPushMessage', {
      origin: running.base,
      registrationId: registrations.find((r) => r.scopeURL === `${running.base}/notification/`)
        ?.registrationId as string,
      data: JSON.stringify(pushed?.message),
    });
    const shown = () =>
      page.evaluate(async () => {
        const registration = await navigator.serviceWorker.getRegistration('/notification/');
        const notifications = (await registration?.getNotifications()) ?? [];
        return notifications.map((n) => ({
          title: n.title,
          body: n.body,
          url: (n.data as { url?: string }).url,
        }));
      });
    await until(async () => (await shown()).length === 1, {
      what: 'the notification shown',
      limitMs: 30_000,
    });
    expect(await shown()).toEqual([
      { title: 'Pushed', body: 'to the browser', url: 'https://app.example/pushed' },
    ]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('turns browser notifications off again, and lists the user’s devices with a remove button each', async () => {
    const here = service.subscribe(publicKey);
    const token = await tokenFor('dee');
    const endpointsOfDee = async () => {
      const listed = await fetch(`${running.base}/notification/push/subscriptions.json`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return ((await listed.json()) as { data: Array<{ endpoint: string }> }).data.map(
        (item) => item.endpoint,
      );
    };
    // Dee's phone, saved as its bell would have saved it.
    const phone = service.subscribe(publicKey);
    const saved = await fetch(`${running.base}/notification/push/subscriptions.json`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'user-agent': 'Mozilla/5.0 (Android 15; Mobile; rv:140.0) Gecko/140.0 Firefox/140.0',
      },
      body: JSON.stringify(phone),
    });
    expect(saved.status).toBe(201);
    const { context, page, errors } = await openBell('dee', async (page) => {
      await page.context().grantPermissions(['notifications'], { origin: running.base });
      await page.addInitScript((json) => {
        (window as unknown as { __testSubscription: unknown }).__testSubscription = json;
      }, here);
    });
    await page.getByRole('button', { name: 'Turn on browser notifications' }).click();
    await page.locator('.herald-bell__push-on').waitFor();

    const devices = page.getByRole('button', { name: 'Devices with browser notifications' });
    expect(await devices.getAttribute('aria-expanded')).toBe('false');
    await devices.click();
    const names = page.locator('.herald-bell__push-device-name');
    await expect
      .poll(() => names.allTextContents())
      .toEqual(['Firefox · Android', 'Chrome · Linux (this device)']);
    expect(await devices.getAttribute('aria-expanded')).toBe('true');
    expect(await seriousViolations(page)).toEqual([]);
    // Phones: the control, the list and each remove button stay across the screen.
    for (const width of [320, 360, 375]) {
      await page.setViewportSize({ width, height: 700 });
      await settled(page);
      expect(await offScreen(page), `${width} px`).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    }

    await page.getByRole('button', { name: 'Remove Firefox · Android' }).click();
    await expect.poll(() => names.allTextContents()).toEqual(['Chrome · Linux (this device)']);
    expect(await endpointsOfDee()).toEqual([here.endpoint]);

    await page.getByRole('button', { name: 'Turn off browser notifications' }).click();
    await page.getByRole('button', { name: 'Turn on browser notifications' }).waitFor();
    expect(await page.locator('.herald-bell__push-on').isVisible()).toBe(false);
    expect(await endpointsOfDee()).toEqual([]);
    expect((await recorded(page)).unsubscribeCalls).toBe(1);
    await page.locator('.herald-bell__push-none').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('leaves the control out once permission is denied, and where the browser has no Push API', async () => {
    // Headless Chromium answers a permission request nobody granted with `denied`, as a user blocking it would.
    const denied = await openBell('bob');
    const control = denied.page.locator('.herald-bell__push-button');
    await control.waitFor();
    await control.click();
    await until(async () => !(await denied.page.locator('.herald-bell__push').isVisible()), {
      what: 'the control to go once denied',
      limitMs: 30_000,
    });
    expect((await recorded(denied.page)).permissionAsks).toBe(1);
    expect((await recorded(denied.page)).subscribeCalls).toEqual([]);
    // On the next visit the browser says `denied` from the start: the control never shows.
    await denied.page.reload();
    await denied.page.locator('.herald-bell__button').click();
    await denied.page.locator('.herald-bell__state--empty').waitFor();
    expect(await denied.page.evaluate(() => Notification.permission)).toBe('denied');
    expect(await denied.page.locator('.herald-bell__push').isVisible()).toBe(false);
    await denied.context.close();

    const without = await openBell('cy', async (page) => {
      await page.addInitScript(() => {
        delete (window as { PushManager?: unknown }).PushManager;
      });
    });
    expect(await without.page.locator('.herald-bell__push').isVisible()).toBe(false);
    expect((await recorded(without.page)).permissionAsks).toBe(0);
    await without.context.close();
  });
});
