import { randomUUID } from 'node:crypto';
import { escapeHtml } from '@herald/notifications';
import { until } from '@herald/test-kit';
import { Hono } from 'hono';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  launchChromium,
  type RunningCenter,
  renderSignedInBell,
  seed,
  signIn,
  startCenter,
} from './browser.js';
import { type RealtimeProcess, startRealtime, startTogether } from './realtime-process.js';

// The bell's inbox states in headless Chromium against the real notification center (with a real real-time
// server for the live pages): tabs with counts, archive and unarchive, snooze, "archive read", seen after a
// second on screen, collapsed items, and a change in one tab followed by another tab of the same browser, both
// where the page is live and where it only polls.

const APP = { id: 'bell-inbox', key: 'bell-inbox-key', secret: 'bell-inbox-secret' };

const bell = (page: Page) => page.locator('.herald-bell__button');
const items = (page: Page) => page.locator('.herald-bell__item');
const titles = (page: Page) => page.locator('.herald-bell__item .herald-bell__title').allTextContents();
const tab = (page: Page, name: string) => page.getByRole('tab', { name });
/** Each tab's name and count as shown, e.g. `All 3`. */
const tabTexts = (page: Page) =>
  page.locator('.herald-bell__tab').evaluateAll((tabs) =>
    tabs.map((el) =>
      Array.from(el.children)
        .filter((child) => (child as HTMLElement).offsetParent !== null)
        .map((child) => child.textContent)
        .join(' '),
    ),
  );
const alice = { type: 'User', id: 'alice' };
const bob = { type: 'User', id: 'bob' };

describe('the bell’s inbox', () => {
  let browser: Browser;
  let realtime: RealtimeProcess;
  let running: RunningCenter;

  beforeAll(async () => {
    [browser, realtime] = await startTogether([launchChromium(), startRealtime(APP)]);
    running = await startCenter(
      {
        REALTIME_URL: `http://127.0.0.1:${realtime.port}`,
        REALTIME_APP_ID: APP.id,
        REALTIME_APP_KEY: APP.key,
        REALTIME_APP_SECRET: APP.secret,
      },
      (inner, center) => {
        const app = new Hono();
        // The bell alone, with options over the rendered ones (`?options={"broadcasting":false}` polls only).
        app.get('/bell-page', async (c) => {
          const page = await renderSignedInBell(c, center);
          if (!page) return c.redirect('/login', 303);
          const extra = JSON.parse(c.req.query('options') ?? '{}') as Record<string, unknown>;
          const options = escapeHtml(JSON.stringify({ ...page.options, ...extra }));
          return c.html(
            `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bell</title>${page.tags.meta}${page.tags.css}</head>
<body><header style="display:flex;justify-content:flex-end;padding:8px"><div data-notification-bell data-options="${options}"></div></header>
${page.tags.js}</body></html>`,
          );
        });
        app.route('/', inner);
        return app;
      },
    );
  });

  afterAll(async () => {
    await browser?.close();
    await running?.stop();
    await realtime?.stop();
  });

  it('archives, unarchives, snoozes and archives all read, with the count of every tab', async () => {
    const { store } = running.center;
    await store.deleteAll(alice);
    const ids = await seed(store, 'alice', [
      { title: 'Alpha', message: 'unread', minutesAgo: 1 },
      { title: 'Beta', message: 'unread', minutesAgo: 2 },
      { title: 'Gamma', message: 'read', minutesAgo: 3 },
      { title: 'Delta', message: 'read', minutesAgo: 4 },
    ]);
    for (const id of ids.slice(2)) await store.markRead(alice, id);
    const { context, page, errors } = await signIn(browser, running.base, 'alice');
    await bell(page).click();
    await expect.poll(() => tabTexts(page)).toEqual(['All 4', 'Unread 2', 'Snoozed 0', 'Archived 0']);

    await page.getByRole('button', { name: 'Archive: Alpha' }).click();
    await expect.poll(() => titles(page)).toEqual(['Beta', 'Gamma', 'Delta']);
    await expect.poll(() => tabTexts(page)).toEqual(['All 3', 'Unread 1', 'Snoozed 0', 'Archived 1']);
    expect(await page.locator('.herald-bell__badge').textContent()).toBe('1');

    await page.getByRole('button', { name: 'Snooze: Beta' }).click();
    await page.getByRole('button', { name: '1 hour' }).click();
    await expect.poll(() => titles(page)).toEqual(['Gamma', 'Delta']);
    await expect.poll(() => tabTexts(page)).toEqual(['All 2', 'Unread 0', 'Snoozed 1', 'Archived 1']);

    await page.getByRole('button', { name: 'Archive read' }).click();
    await expect.poll(() => items(page).count()).toBe(0);
    await expect.poll(() => tabTexts(page)).toEqual(['All 0', 'Unread 0', 'Snoozed 1', 'Archived 3']);

    await tab(page, 'Archived').click();
    await expect.poll(() => titles(page)).toEqual(['Alpha', 'Gamma', 'Delta']);
    await page.getByRole('button', { name: 'Move to inbox: Alpha' }).click();
    await expect.poll(() => titles(page)).toEqual(['Gamma', 'Delta']);
    await expect.poll(() => tabTexts(page)).toEqual(['All 1', 'Unread 1', 'Snoozed 1', 'Archived 2']);

    await tab(page, 'Snoozed').click();
    await expect.poll(() => titles(page)).toEqual(['Beta']);
    expect(await items(page).first().locator('.herald-bell__snoozed').textContent()).toBe('Back in 1 hour');

    // What the server holds agrees with what the bell shows.
    expect(await store.inboxCounts(alice)).toMatchObject({ inbox: 1, unread: 1, snoozed: 1, archived: 2 });
    const beta = await store.find(alice, ids[1] as string);
    const ahead = Date.parse(beta?.snoozed_until ?? '') - Date.now();
    expect(ahead > 50 * 60_000 && ahead <= 60 * 60_000).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('marks items seen after a second on screen in one request, and shows a collapsed item’s count', async () => {
    const { store } = running.center;
    await store.deleteAll(bob);
    for (const actor of ['Ada', 'Bo', 'Cy']) {
      await store.insertMany([
        {
          id: randomUUID(),
          type: 'CommentAdded',
          notifiable_type: 'User',
          notifiable_id: 'bob',
          data: { title: `${actor} commented on your post`, message: 'Nice work', actor },
          collapse_key: 'post-9-comments',
        },
      ]);
    }
    await seed(store, 'bob', [{ title: 'Build passed', message: 'main is green', minutesAgo: 5 }]);
    const { context, page, errors } = await signIn(browser, running.base, 'bob');
    const seenRequests: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/seen.json')) seenRequests.push(request.postData() ?? '');
    });
    await expect.poll(() => page.locator('.herald-bell__badge').textContent()).toBe('2');
    expect((await store.inboxCounts(bob)).unseen).toBe(2);

    await bell(page).click();
    await expect.poll(() => titles(page)).toEqual(['Cy commented on your post', 'Build passed']);
    expect(await items(page).first().locator('.herald-bell__collapsed').textContent()).toBe(
      'Cy and 2 others',
    );
    // Playwright reports the page's request over CDP, which can reach this process after the server has stored it.
    await until(async () => (await store.inboxCounts(bob)).unseen === 0 && seenRequests.length > 0);
    expect(seenRequests).toHaveLength(1);
    expect((JSON.parse(seenRequests[0] as string) as { ids: string[] }).ids).toHaveLength(2);
    // Seen is not read.
    expect(await page.locator('.herald-bell__badge').textContent()).toBe('2');
    expect(errors).toEqual([]);
    await context.close();
  });

  /** Two pages of one browser context, both on `path` with the bell open on the same three notifications. */
  const crossTab = async (path: string, mode: 'live' | 'polling') => {
    const { store } = running.center;
    await store.deleteAll(alice);
    await seed(store, 'alice', [
      { title: 'First', message: 'one', minutesAgo: 1 },
      { title: 'Second', message: 'two', minutesAgo: 2 },
      { title: 'Third', message: 'three', minutesAgo: 3 },
    ]);
    const { context, page: first, errors } = await signIn(browser, running.base, 'alice');
    const second = await context.newPage();
    for (const page of [first, second]) {
      // Polling: the clock is the test's, so no poll runs and only the other tab can tell this one. Live: the
      // private channel is authorised before anything changes.
      if (mode === 'polling') await page.clock.install();
      const authorised =
        mode === 'live' ? page.waitForResponse((r) => r.url().includes('/broadcasting/auth')) : undefined;
      await page.goto(`${running.base}${path}`);
      await authorised;
      await bell(page).click();
      await expect.poll(() => items(page).count()).toBe(3);
    }
    return { context, first, second, errors };
  };

  const followsAcrossTabs = async (first: Page, second: Page) => {
    await first.getByRole('button', { name: 'Archive: First' }).click();
    await expect.poll(() => titles(second)).toEqual(['Second', 'Third']);
    await expect.poll(() => tabTexts(second)).toEqual(['All 2', 'Unread 2', 'Snoozed 0', 'Archived 1']);
    await first.getByRole('button', { name: 'Mark as read: Second' }).click();
    await expect.poll(() => second.locator('.herald-bell__badge').textContent()).toBe('1');
    await expect.poll(() => second.locator('.herald-bell__item--unread').count()).toBe(1);
    await first.getByRole('button', { name: 'Snooze: Third' }).click();
    await first.getByRole('button', { name: 'Tomorrow' }).click();
    await expect.poll(() => titles(second)).toEqual(['Second']);
  };

  it('follows a change made in another tab of the same browser, live', async () => {
    const { context, first, second, errors } = await crossTab('/', 'live');
    await followsAcrossTabs(first, second);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('follows a change made in another tab of the same browser where the page only polls', async () => {
    const options = encodeURIComponent(JSON.stringify({ broadcasting: false }));
    const { context, first, second, errors } = await crossTab(`/bell-page?options=${options}`, 'polling');
    expect(await second.evaluate(() => 'Pusher' in window)).toBe(false);
    await followsAcrossTabs(first, second);
    expect(errors).toEqual([]);
    await context.close();
  });
});
