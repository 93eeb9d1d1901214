import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type RunningCenter, seed, signIn, startCenter } from './browser.js';
import { startTogether } from './realtime-process.js';

// Takes the screenshots shown in packages/notification-bell/README.md: dropdown and panel, light and dark, at
// desktop and phone width. A test run writes them to a temporary folder, so running the tests leaves the checkout
// as it was; `HERALD_UPDATE_SCREENSHOTS=1` writes them over the README's images.
const DOCS = process.env.HERALD_UPDATE_SCREENSHOTS
  ? fileURLToPath(new URL('../../../packages/notification-bell/docs/', import.meta.url))
  : `${await mkdtemp(join(tmpdir(), 'herald-bell-screenshots-'))}/`;

describe('the bell’s screenshots', () => {
  let browser: Browser;
  let running: RunningCenter;

  beforeAll(async () => {
    [browser, running] = await startTogether([launchChromium(), startCenter({})]);
    await seed(running.center.store, 'alice', [
      {
        title: 'Invoice #1042 was paid',
        message: 'Acme Corp paid €1,280.00 by card.',
        icon: 'check',
        type: 'success',
        action_url: '/invoices/1042',
        minutesAgo: 2,
      },
      {
        title: 'Carol mentioned you',
        message: '“@alice can you review the rollout plan before Friday?”',
        icon: 'message',
        actions: [
          { name: 'reply', label: 'Reply', url: '/threads/7', color: 'info' },
          { name: 'later', label: 'Remind me later', event: 'remind-later' },
        ],
        minutesAgo: 25,
      },
      {
        title: 'Disk usage at 91%',
        message: 'db-2 will be full in about 3 days at the current rate.',
        icon: 'alert',
        type: 'warning',
        minutesAgo: 3 * 60,
      },
      { title: 'New sign-in', message: 'Firefox on Linux, Berlin', icon: 'user', minutesAgo: 26 * 60 },
      {
        title: 'Weekly report ready',
        message: '12 deploys, 0 incidents.',
        icon: 'post',
        minutesAgo: 5 * 24 * 60,
      },
    ]);
    await mkdir(DOCS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await running?.stop();
    if (!process.env.HERALD_UPDATE_SCREENSHOTS) await rm(DOCS, { recursive: true, force: true });
  });

  // Desktop and phone width (390 px, an iPhone's), each layout in each theme.
  const screens = [
    { name: '', viewport: { width: 1000, height: 600 } },
    { name: '-phone', viewport: { width: 390, height: 760 } },
  ] as const;

  for (const screen of screens) {
    for (const mode of ['dropdown', 'panel'] as const) {
      for (const theme of ['light', 'dark'] as const) {
        it(`shows the ${mode} in the ${theme} theme at ${screen.viewport.width} px`, async () => {
          const { context, page, errors } = await signIn(browser, running.base, 'alice', {
            colorScheme: theme,
            viewport:
              mode === 'panel' && screen.name === '' ? { ...screen.viewport, height: 640 } : screen.viewport,
          });
          await page.goto(`${running.base}/?mode=${mode}&theme=${theme}`);
          await page.locator('.herald-bell__button').click();
          await page.locator('.herald-bell__item').nth(4).waitFor();
          expect(await page.locator('.herald-bell').getAttribute('data-theme')).toBe(theme);
          await page.mouse.move(0, 0);
          await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
          const path = `${DOCS}${mode}-${theme}${screen.name}.png`;
          await page.screenshot({ path, animations: 'disabled' });
          expect((await stat(path)).size).toBeGreaterThan(10_000);
          expect(errors).toEqual([]);
          await context.close();
        });
      }
    }
  }
});
