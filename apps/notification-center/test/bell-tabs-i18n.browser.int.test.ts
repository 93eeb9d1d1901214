import { escapeHtml } from '@herald/notifications';
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
import { startTogether } from './realtime-process.js';

// The "All" and "Unread" tabs, the bell in other languages, the unread count beside a notification made in
// the page, and that a page without broadcasting never loads the live-push code (pusher-js).

const bell = (page: Page) => page.locator('.herald-bell__button');
const items = (page: Page) => page.locator('.herald-bell__item');
const tab = (page: Page, name: string) => page.getByRole('tab', { name });

describe('the bell’s tabs, languages and counts', () => {
  let browser: Browser;
  let running: RunningCenter;

  beforeAll(async () => {
    [browser, running] = await startTogether([
      launchChromium(),
      startCenter({}, (inner, center) => {
        const app = new Hono();
        // A page in another language: `lang` on <html>, and any options over the rendered ones.
        app.get('/lang/:lang', async (c) => {
          const bellPage = await renderSignedInBell(c, center);
          if (!bellPage) return c.redirect('/login', 303);
          const extra = JSON.parse(c.req.query('options') ?? '{}') as Record<string, unknown>;
          const options = escapeHtml(JSON.stringify({ ...bellPage.options, ...extra }));
          return c.html(
            `<!doctype html><html lang="${escapeHtml(c.req.param('lang'))}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Bell</title>${bellPage.tags.meta}${bellPage.tags.css}</head>
<body><header style="display:flex;justify-content:flex-end;padding:8px"><div class="notifications-wrapper" data-notification-bell data-options="${options}"></div></header>
${bellPage.tags.js}</body></html>`,
          );
        });
        app.route('/', inner);
        return app;
      }),
    ]);
  });

  afterAll(async () => {
    await browser?.close();
    await running?.stop();
  });

  it('lists every notification under All and the unread ones under Unread, by click and by arrow keys', async () => {
    const [, , read] = await seed(running.center.store, 'bob', [
      { title: 'Build passed', message: 'main is green', minutesAgo: 1 },
      { title: 'Comment', message: 'Carol replied', minutesAgo: 2 },
      { title: 'Old news', message: 'already seen', minutesAgo: 3 },
    ]);
    await running.center.store.markRead({ type: 'User', id: 'bob' }, read as string);
    const { context, page, errors } = await signIn(browser, running.base, 'bob');
    const lists: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      // The lists only: the counts per tab and the seen batch go beside them.
      if (url.pathname.startsWith('/notification/') && !/\/(counts|seen)\.json$/.test(url.pathname)) {
        lists.push(url.pathname);
      }
    });
    await bell(page).click();
    await expect.poll(() => items(page).count()).toBe(3);
    expect(await tab(page, 'All').getAttribute('aria-selected')).toBe('true');
    expect(await page.locator('[role=tabpanel]').getAttribute('aria-labelledby')).toBe(
      await tab(page, 'All').getAttribute('id'),
    );

    await tab(page, 'Unread').click();
    await expect.poll(() => items(page).count()).toBe(2);
    expect(await tab(page, 'Unread').getAttribute('aria-selected')).toBe('true');
    expect(await items(page).allTextContents()).not.toContainEqual(expect.stringContaining('Old news'));

    // Left/Right move between the tabs, showing the one reached and focusing it.
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => items(page).count()).toBe(3);
    expect(
      await page.evaluate(() => document.activeElement?.querySelector('.herald-bell__tab-name')?.textContent),
    ).toBe('All');
    expect(lists).toEqual(['/notification/notifications/unread.json', '/notification/notifications.json']);
    expect(await page.locator('.herald-bell__count').textContent()).toBe('2 unread');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('speaks German on a German page, French when the options say so, with the host’s own words on top', async () => {
    await seed(running.center.store, 'alice', [
      { title: 'Bericht fertig', message: 'Woche 47', minutesAgo: 5 },
      { title: 'Neuer Kommentar', message: 'von Carol', minutesAgo: 90 },
    ]);
    const { context, page, errors } = await signIn(browser, running.base, 'alice', {
      viewport: { width: 320, height: 640 },
    });
    await page.goto(`${running.base}/lang/de`);
    await expect.poll(() => bell(page).getAttribute('aria-label')).toBe('Benachrichtigungen, 2 ungelesen');
    await bell(page).click();
    await expect.poll(() => items(page).count()).toBe(2);
    expect(await page.locator('.herald-bell__heading').textContent()).toBe('Benachrichtigungen');
    expect(await page.locator('.herald-bell__tab-name').allTextContents()).toEqual([
      'Alle',
      'Ungelesen',
      'Später',
      'Archiv',
    ]);
    expect(await page.locator('.herald-bell__mark-all').textContent()).toBe('Alle als gelesen markieren');
    expect(await items(page).first().locator('.herald-bell__time').textContent()).toBe('vor 5 Minuten');
    expect(await items(page).last().locator('.herald-bell__time').textContent()).toBe('vor 2 Stunden');
    expect(await page.locator('.herald-bell__close').getAttribute('aria-label')).toBe('Schließen');
    // The longer words still leave the close button on a 320 px screen.
    const close = await page.locator('.herald-bell__close').boundingBox();
    expect(close && close.x >= 0 && close.x + close.width <= 320).toBe(true);

    const french = encodeURIComponent(JSON.stringify({ locale: 'fr', strings: { title: 'Alertes' } }));
    await page.goto(`${running.base}/lang/de?options=${french}`);
    await expect.poll(() => bell(page).getAttribute('aria-label')).toBe('Notifications, 2 non lues');
    await bell(page).click();
    await expect.poll(() => items(page).count()).toBe(2);
    expect(await page.locator('.herald-bell__heading').textContent()).toBe('Alertes');
    expect(await page.locator('.herald-bell__tab-name').allTextContents()).toEqual([
      'Toutes',
      'Non lues',
      'Reportées',
      'Archivées',
    ]);
    expect(await items(page).first().locator('.herald-bell__time').textContent()).toBe('il y a 5 minutes');
    expect(errors).toEqual([]);
    await context.close();
    await running.center.store.deleteAll({ type: 'User', id: 'alice' });
  });

  it('counts a notification made in the page beside the server’s, across polls, and the demo page follows', async () => {
    await running.center.store.deleteAll({ type: 'User', id: 'alice' }); // whatever an earlier test left
    await seed(running.center.store, 'alice', [{ title: 'From the server', message: 'one', minutesAgo: 1 }]);
    const { context, page, errors } = await signIn(browser, running.base, 'alice');
    await page.clock.install(); // the poll's interval is the test's to move on
    await page.reload();
    await expect.poll(() => page.locator('.herald-bell__badge').textContent()).toBe('1');
    await page.evaluate(() =>
      (
        window as unknown as {
          HeraldNotificationBell: { make(): { title(t: string): { message(m: string): { send(): void } } } };
        }
      ).HeraldNotificationBell.make()
        .title('Draft saved')
        .message('made in the page')
        .send(),
    );
    await expect.poll(() => page.locator('.herald-bell__badge').textContent()).toBe('2');
    await page.clock.fastForward(30_000); // a poll: the server still counts its one
    await page.clock.fastForward(30_000);
    await bell(page).click();
    await expect.poll(() => page.locator('.herald-bell__item--unread').count()).toBe(2);
    expect(await page.locator('.herald-bell__badge').textContent()).toBe('2');
    expect(await page.locator('.herald-bell__count').textContent()).toBe('2 unread');
    // The demo page's own count and list are the bell's.
    expect(await page.locator('#unread-count').textContent()).toBe('2');
    expect(await page.locator('#latest li').first().textContent()).toContain('Draft saved');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('never loads the live-push code on a page without broadcasting', async () => {
    const { context, page, errors } = await signIn(browser, running.base, 'bob');
    const scripts: string[] = [];
    page.on('request', (request) => {
      if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
    });
    await page.reload();
    await bell(page).click();
    await page.locator('[role=dialog]').waitFor({ state: 'visible' });
    await page.waitForLoadState('networkidle');
    expect(scripts).toEqual(['/assets/notification-bell/notification-bell.js']);
    expect(await page.evaluate(() => 'Pusher' in window)).toBe(false);
    expect(errors).toEqual([]);
    await context.close();
  });
});
