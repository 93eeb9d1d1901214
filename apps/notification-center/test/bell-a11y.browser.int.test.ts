import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offScreen, seriousViolations, settled } from './bell-audit.js';
import { launchChromium, type RunningCenter, seed, signIn, startCenter } from './browser.js';
import { startTogether } from './realtime-process.js';

// The bell as people see it: an axe-core audit (the npm package, injected into the page) over the closed bell,
// the open dropdown and the open panel, light and dark; and phone widths, where everything must stay on screen.

const bell = (page: Page) => page.locator('.herald-bell__button');

/** The element's box, and whether it lies wholly inside the viewport. */
async function boxOf(page: Page, selector: string) {
  await settled(page);
  const box = await page.locator(selector).boundingBox();
  const viewport = page.viewportSize();
  if (!box || !viewport) throw new Error(`${selector} is not on the page`);
  return {
    ...box,
    inside:
      box.x >= 0 &&
      box.y >= 0 &&
      box.x + box.width <= viewport.width + 0.5 &&
      box.y + box.height <= viewport.height + 0.5,
    viewport,
  };
}

/** Whether a box lies wholly inside another. */
function within(inner: Box, outer: Box): boolean {
  return (
    inner.x >= outer.x - 0.5 &&
    inner.y >= outer.y - 0.5 &&
    inner.x + inner.width <= outer.x + outer.width + 0.5 &&
    inner.y + inner.height <= outer.y + outer.height + 0.5
  );
}

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The header rows whose content is wider than they are. */
function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>('.herald-bell__header, .herald-bell__toolbar'))
      .filter((row) => row.scrollWidth > row.clientWidth + 1)
      .map((row) => row.className),
  );
}

describe('the bell’s accessibility and phone layout', () => {
  let browser: Browser;
  let running: RunningCenter;

  beforeAll(async () => {
    [browser, running] = await startTogether([launchChromium(), startCenter({})]);
    const ids = await seed(running.center.store, 'alice', [
      {
        title: 'Deploy failed',
        message: 'The rollout of api v2 stopped at 40%.',
        icon: 'alert',
        type: 'danger',
        actions: [
          { name: 'rollback', label: 'Roll back', event: 'rollback', color: 'danger' },
          { name: 'logs', label: 'Open logs', url: '/logs', color: 'info' },
          { name: 'ok', label: 'Approve', event: 'approve', color: 'success' },
          { name: 'wait', label: 'Snooze', event: 'snooze', color: 'warning' },
          { name: 'later', label: 'Later', event: 'later' },
        ],
        minutesAgo: 1,
      },
      { title: 'Carol mentioned you', message: 'Can you review the plan?', icon: 'message', minutesAgo: 30 },
      { title: 'Weekly report ready', message: '12 deploys, 0 incidents.', icon: 'post', minutesAgo: 3000 },
    ]);
    // One read, so both the read and the unread looks are audited (in the "All" tab).
    await running.center.store.markRead({ type: 'User', id: 'alice' }, ids[2] as string);
  });

  afterAll(async () => {
    await browser?.close();
    await running?.stop();
  });

  for (const theme of ['light', 'dark'] as const) {
    it(`has no serious or critical axe violation in the ${theme} theme, closed, as a dropdown and as a panel`, async () => {
      const { context, page, errors } = await signIn(browser, running.base, 'alice', { colorScheme: theme });
      // Every console error counts here, a failed favicon request included.
      const consoleErrors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text());
      });
      page.on('request', (request) => {
        if (new URL(request.url()).pathname === '/favicon.ico') consoleErrors.push('asked for /favicon.ico');
      });
      await page.goto(`${running.base}/?theme=${theme}`);
      expect(await page.locator('link[rel=icon]').count()).toBe(1);
      await expect.poll(() => page.locator('.herald-bell__badge').textContent()).toBe('2');
      expect(await page.locator('.herald-bell').getAttribute('data-theme')).toBe(theme);
      expect(await seriousViolations(page)).toEqual([]);

      await bell(page).click();
      await page.locator('.herald-bell__item').nth(2).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      // The inbox controls: the counts on the tabs, a snooze menu open, "archive read".
      await page.locator('.herald-bell__tab-count').first().waitFor();
      await page.getByRole('button', { name: 'Snooze: Carol mentioned you' }).click();
      await page.locator('.herald-bell__snooze-option:visible').first().waitFor();
      expect(await page.locator('.herald-bell__archive-read').isVisible()).toBe(true);
      expect(await seriousViolations(page)).toEqual([]);

      await page.goto(`${running.base}/?theme=${theme}&mode=panel`);
      await bell(page).click();
      await page.locator('.herald-bell__item').nth(2).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      expect(errors).toEqual([]);
      expect(consoleErrors).toEqual([]);
      await context.close();
    });
  }

  for (const width of [320, 360, 375]) {
    it(`keeps the dropdown and the panel on a ${width} px wide phone, every button and item included`, async () => {
      const { context, page, errors } = await signIn(browser, running.base, 'alice', {
        viewport: { width, height: 700 },
      });
      await bell(page).click();
      await page.locator('.herald-bell__item').first().waitFor();
      const dropdown = await boxOf(page, '.herald-bell__popover');
      expect(dropdown.inside).toBe(true);
      expect(within(await boxOf(page, '.herald-bell__close'), dropdown)).toBe(true);
      expect(within(await boxOf(page, '.herald-bell__mark-all'), dropdown)).toBe(true);
      // The header and the toolbar wrap rather than run out of the dropdown.
      expect(await overflowing(page)).toEqual([]);
      // Nothing in it is wider than the screen: the page does not scroll sideways.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      // Every button (the four tabs with counts, the item tools, the snooze choices, the actions) and item.
      await page.locator('.herald-bell__tab-count').first().waitFor();
      await page.locator('.herald-bell__item').first().locator('[aria-expanded]').click();
      await page.locator('.herald-bell__snooze-option:visible').first().waitFor();
      await settled(page);
      expect(await offScreen(page)).toEqual([]);
      expect(await overflowing(page)).toEqual([]);

      await page.goto(`${running.base}/?mode=panel`);
      await bell(page).click();
      await page.locator('.herald-bell__item').first().waitFor();
      const panel = await boxOf(page, '.herald-bell__popover');
      expect(panel.inside).toBe(true);
      expect(Math.round(panel.width)).toBe(width);
      expect(within(await boxOf(page, '.herald-bell__close'), panel)).toBe(true);
      expect(await overflowing(page)).toEqual([]);
      await page.locator('.herald-bell__item').first().locator('[aria-expanded]').click();
      await page.locator('.herald-bell__snooze-option:visible').first().waitFor();
      await settled(page);
      expect(await offScreen(page)).toEqual([]);
      await page.locator('.herald-bell__close').click();
      await page.locator('[role=dialog]').waitFor({ state: 'hidden' });
      expect(errors).toEqual([]);
      await context.close();
    });
  }
});
