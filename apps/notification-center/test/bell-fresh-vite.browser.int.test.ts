import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The bell package's own helper: the same fresh project its fresh-project test builds and type-checks.
import {
  createFreshProject,
  type FreshProject,
  sh,
} from '../../../packages/notification-bell/test/fresh-project.js';
import { launchChromium, openPage, type RunningCenter, seed, startCenter } from './browser.js';
import { startTogether } from './realtime-process.js';
import { type Listening, listen, startTokenService, tokenFor } from './token-service.js';

// A new user's page, end to end: a fresh Vite 8 project installs the packed bell tarball (pnpm, outside the
// workspace), builds the README's snippet as written, and its built page, on its own origin, works against
// the notification service on another origin with a host-signed user token.

describe('a fresh Vite project’s page against the service on another origin', () => {
  let browser: Browser;
  let running: RunningCenter;
  let host: Listening;
  let service: Listening;
  let fresh: FreshProject;

  beforeAll(async () => {
    [browser, running] = await startTogether([launchChromium(), startCenter({})]);
    const hostApp = new Hono();
    host = await listen(hostApp);
    service = await startTokenService({
      store: running.center.store,
      allowOrigin: host.origin,
    });
    const options = JSON.stringify({
      userId: 'bob',
      authToken: await tokenFor('bob', 'Bob'),
      apiUrl: `${service.origin}/notification/notifications/unread.json`,
    });
    fresh = await createFreshProject(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Fresh app</title><link rel="icon" href="data:,"></head><body>
<header style="display:flex;justify-content:flex-end;padding:8px 16px"><div data-notification-bell data-options='${options}'></div></header>
<script type="module" src="/src/main.ts"></script></body></html>`);
    await sh(fresh.bin('vite'), ['build'], fresh.project);
    hostApp.use('/*', serveStatic({ root: `${fresh.project}/dist` }));
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await host?.stop();
    await service?.stop();
    await running?.stop();
    await fresh?.remove();
  });

  it('lists the user’s notifications beside the one the page made, and marks one read', async () => {
    await seed(running.center.store, 'bob', [
      { title: 'Invoice paid', message: '€120', minutesAgo: 3 },
      { title: 'New comment', message: 'from Carol', minutesAgo: 9 },
    ]);
    const { context, page, errors } = await openPage(browser);
    await page.goto(`${host.origin}/`);

    // Two from the service and the snippet's make().send(): three unread.
    await expect.poll(() => page.locator('.herald-bell__badge').textContent()).toBe('3');
    await page.locator('.herald-bell__button').click();
    await expect
      .poll(() => page.locator('.herald-bell__title').allTextContents())
      .toEqual(['Draft saved', 'Invoice paid', 'New comment']);
    await page
      .locator('.herald-bell__item', { hasText: 'Invoice paid' })
      .locator('.herald-bell__item-main')
      .click();
    await expect.poll(() => page.locator('.herald-bell__badge').textContent()).toBe('2');
    expect(await running.center.store.unreadCount({ type: 'User', id: 'bob' })).toBe(1);
    expect(errors).toEqual([]);
    await context.close();
  });
});
