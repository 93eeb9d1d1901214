import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type RunningCenter, seed, signIn, startCenter } from './browser.js';
import { type RealtimeProcess, startRealtime } from './realtime-process.js';

// The bell widget (packages/notification-bell, built) on the notification center's demo page, in the
// machine's headless Chromium, with a real Herald real-time server behind the live updates.

const APP = { id: 'bell-e2e', key: 'bell-e2e-key', secret: 'bell-e2e-secret' };

const bell = (page: Page) => page.locator('.herald-bell__button');
const items = (page: Page) => page.locator('.herald-bell__item');

describe('the notification bell in a real browser', () => {
  let browser: Browser;
  let realtime: RealtimeProcess;
  let live: RunningCenter;

  beforeAll(async () => {
    [browser, realtime] = await Promise.all([launchChromium(), startRealtime(APP)]);
    live = await startCenter({
      REALTIME_URL: `http://127.0.0.1:${realtime.port}`,
      REALTIME_APP_ID: APP.id,
      REALTIME_APP_KEY: APP.key,
      REALTIME_APP_SECRET: APP.secret,
    });
  });

  afterAll(async () => {
    await browser?.close();
    await live?.stop();
    await realtime?.stop();
  });

  it('shows the unread count, opens, lists a page, loads more, and works from the keyboard', async () => {
    await seed(
      live.center.store,
      'alice',
      Array.from({ length: 12 }, (_, i) => ({
        title: `Report ${i + 1}`,
        message: 'Ready',
        minutesAgo: i + 1,
      })),
    );
    const { context, page, errors } = await signIn(browser, live.base, 'alice');
    await expect.poll(() => page.locator('.herald-bell__badge').textContent()).toBe('12');
    await expect.poll(() => bell(page).getAttribute('aria-label')).toBe('Notifications, 12 unread');
    expect(await bell(page).getAttribute('aria-expanded')).toBe('false');

    await bell(page).click();
    expect(await bell(page).getAttribute('aria-expanded')).toBe('true');
    await page.locator('[role=dialog]').waitFor({ state: 'visible' });
    await expect.poll(() => items(page).count()).toBe(10);
    expect(await items(page).first().locator('.herald-bell__title').textContent()).toBe('Report 1');
    expect(await items(page).first().locator('.herald-bell__time').textContent()).toBe('1 minute ago');

    await page.locator('.herald-bell__more-button').click();
    await expect.poll(() => items(page).count()).toBe(12);
    expect(await items(page).last().locator('.herald-bell__title').textContent()).toBe('Report 12');
    expect(await page.locator('.herald-bell__more-button').count()).toBe(0);

    // Focus went into the list; arrows move through items, Escape closes and gives focus back to the bell.
    const focusedTitle = () =>
      page.evaluate(() =>
        document.activeElement?.matches('[data-bell-focus]')
          ? document.activeElement.querySelector('.herald-bell__title')?.textContent
          : null,
      );
    expect(await focusedTitle()).toBe('Report 11'); // the first of the page just loaded
    await page.keyboard.press('Home');
    expect(await focusedTitle()).toBe('Report 1');
    await page.keyboard.press('ArrowDown');
    expect(await focusedTitle()).toBe('Report 2');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    expect(await focusedTitle()).toBe('Report 12');
    await page.keyboard.press('Escape');
    await page.locator('[role=dialog]').waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => document.activeElement?.classList.contains('herald-bell__button'))).toBe(
      true,
    );
    await page.keyboard.press('Enter');
    await page.locator('[role=dialog]').waitFor({ state: 'visible' });
    await page.keyboard.press('Escape');
    await page.keyboard.press('ArrowDown');
    await page.locator('[role=dialog]').waitFor({ state: 'visible' });
    await page.mouse.click(20, 700);
    await page.locator('[role=dialog]').waitFor({ state: 'hidden' });

    expect(errors).toEqual([]);
    await context.close();
  });
});
