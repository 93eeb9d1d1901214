import { randomUUID } from 'node:crypto';
import { safeEqual } from '@herald/protocol-core';
import { Hono } from 'hono';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownsChannel } from '../src/broadcasting-auth.js';
import { DEMO_SESSION_SECRET } from '../src/config.js';
import { createSessions } from '../src/session.js';
import {
  launchChromium,
  type RunningCenter,
  recordedEvents,
  renderSignedInBell,
  signIn,
  startCenter,
} from './browser.js';
import { type MercureHubDouble, signJwt, startMercureHubDouble } from './mercure-hub-double.js';

// The bell's `hub` broadcaster in headless Chromium: the notification center's API and demo login, a page that
// renders the bell in push-only hub mode, a token endpoint as an app would write one, and a loopback Mercure
// hub double (see mercure-hub-double.ts for the protocol rules it follows).

const KEYS = { subscriberKey: 'hub-subscriber-key', publisherKey: 'hub-publisher-key' };

describe('the bell with a Mercure-style hub', () => {
  let browser: Browser;
  let hub: MercureHubDouble;
  let running: RunningCenter;
  let origin = '';

  beforeAll(async () => {
    browser = await launchChromium();
    hub = await startMercureHubDouble({ ...KEYS, allowOrigin: () => origin });
    const sessions = createSessions(DEMO_SESSION_SECRET);
    running = await startCenter({}, (inner, center) => {
      const app = new Hono();
      // The app's side of hub auth: POST {channel_names} → {topics, token} for the user's own channels.
      app.post('/hub/auth', async (c) => {
        const user = await sessions.user(c);
        if (!user) return c.json({ error: { code: 'unauthenticated', message: 'sign in' } }, 401);
        if (!safeEqual(c.req.header('x-csrf-token') ?? '', sessions.csrfToken(user))) {
          return c.json({ error: { code: 'csrf_token_mismatch', message: 'CSRF' } }, 403);
        }
        const { channel_names: names } = (await c.req.json()) as { channel_names: string[] };
        if (!names.every((name) => ownsChannel(user, name))) {
          return c.json({ error: { code: 'forbidden', message: 'not yours' } }, 403);
        }
        const exp = Math.floor(Date.now() / 1000) + 3600;
        return c.json({
          topics: names,
          token: signJwt({ mercure: { subscribe: names }, exp }, KEYS.subscriberKey),
        });
      });
      app.get('/hub-demo', async (c) => {
        const bell = await renderSignedInBell(c, center, {
          enablePolling: false,
          broadcasting: { broadcaster: 'hub', hubUrl: hub.url, authEndpoint: '/hub/auth' },
        });
        if (!bell) return c.redirect('/login', 303);
        return c.html(
          `<!doctype html><html lang="en"><head>${bell.tags.meta}${bell.tags.css}</head><body>${bell.html}${bell.tags.js}</body></html>`,
        );
      });
      app.route('/', inner);
      return app;
    });
    origin = running.base;
  });

  afterAll(async () => {
    await browser?.close();
    await running?.stop();
    await hub?.close();
  });

  /** Stores a notification for a user and publishes it to the hub as a server would, privately. */
  async function sendThroughHub(user: string, title: string): Promise<string> {
    const id = randomUUID();
    const channel = `private-User.${user}`;
    await running.center.store.insertMany([
      {
        id,
        type: 'HubNotification',
        notifiable_type: 'User',
        notifiable_id: user,
        data: { title, message: 'via the hub' },
      },
    ]);
    const record = (await running.center.store.find({ type: 'User', id: user }, id)) as object;
    const publisher = signJwt({ mercure: { publish: ['*'] } }, KEYS.publisherKey);
    const answer = await fetch(hub.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${publisher}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        topic: channel,
        private: 'on',
        data: JSON.stringify({ event: 'notification.created', data: record, channel }),
      }),
    });
    expect(answer.status).toBe(200);
    expect(await answer.text()).toMatch(/^urn:uuid:/);
    return id;
  }

  it('refuses what the Mercure rules refuse', async () => {
    const wrong = signJwt({ mercure: { subscribe: ['*'] } }, 'another-key');
    expect((await fetch(`${hub.url}?topic=x&authorization=${wrong}`)).status).toBe(401);
    const subscriberOnly = signJwt({ mercure: { subscribe: ['*'] } }, KEYS.subscriberKey);
    const publish = (token: string) =>
      fetch(hub.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: new URLSearchParams({ topic: 'private-User.alice', data: '{}' }),
      });
    expect((await publish(subscriberOnly)).status).toBe(401);
    expect((await publish(signJwt({ mercure: { publish: ['other'] } }, KEYS.publisherKey))).status).toBe(403);
  });

  it('receives private updates for its own topic only, live, and polls while the hub is down', async () => {
    const { context, page, errors } = await signIn(browser, running.base, 'alice');
    await page.clock.install();
    await page.goto(`${running.base}/hub-demo`);
    await page.locator('.herald-bell__button').click();
    await page.locator('.herald-bell__state--empty').waitFor();
    await expect.poll(() => hub.connected).toBe(1);
    expect(hub.subscriptions.at(-1)).toEqual({
      topics: ['private-User.alice'],
      tokenFrom: 'query',
      status: 200,
    });

    await sendThroughHub('bob', 'For Bob only');
    await sendThroughHub('alice', 'Hello over SSE');
    await page.locator('.herald-bell__item', { hasText: 'Hello over SSE' }).waitFor();
    expect(await page.locator('.herald-bell__item').count()).toBe(1);
    expect(await page.locator('.herald-bell__badge').textContent()).toBe('1');
    expect((await recordedEvents(page)).map((event) => event.name)).toEqual(['notification:received']);

    // The hub goes away and refuses for a while: push-only mode falls back to polling until it is back.
    hub.dropAll(true);
    await page.locator('.herald-bell__status').waitFor({ state: 'visible' });
    await running.center.store.insertMany([
      {
        id: randomUUID(),
        type: 'HubNotification',
        notifiable_type: 'User',
        notifiable_id: 'alice',
        data: { title: 'Caught by polling', message: 'while the hub was down' },
      },
    ]);
    await page.clock.fastForward(30_000);
    await page.locator('.herald-bell__item', { hasText: 'Caught by polling' }).waitFor();

    hub.dropAll(false);
    await page.clock.fastForward(60_000);
    await expect.poll(() => hub.connected, { timeout: 10_000 }).toBe(1);
    await page.locator('.herald-bell__status').waitFor({ state: 'hidden' });
    await sendThroughHub('alice', 'Back live');
    await page.locator('.herald-bell__item', { hasText: 'Back live' }).waitFor();
    expect(errors.filter((error) => !error.includes('503'))).toEqual([]);
    await context.close();
  });
});
