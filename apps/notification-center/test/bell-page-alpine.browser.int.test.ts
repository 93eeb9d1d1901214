import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Hono } from 'hono';
import type { Browser } from 'playwright-core';
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

// The standalone script on a page that brings its own Alpine (alpinejs's own CDN build, served from
// node_modules): the bell must register with that Alpine, before or after it in the page, and never start the
// Alpine bundled in it.

// alpinejs is the bell package's dependency, so it is resolved from there.
const fromBell = createRequire(import.meta.resolve('@herald/notification-bell/standalone'));
const ALPINE_FILE = fromBell.resolve('alpinejs/dist/cdn.min.js');

/** Where the page's Alpine script goes, relative to the bell's `<script type="module">`. */
const PAGES = {
  // Alpine's documented tag, `defer` in the head: it runs (and starts) before the bell's module script.
  before: { head: '<script defer src="/vendor/alpine.js"></script>', end: '' },
  // The same tag after the bell's: both are deferred, so the bell runs first, with no Alpine in the page yet.
  after: { head: '', end: '<script defer src="/vendor/alpine.js"></script>' },
} as const;

/**
 * Records every assignment to `window.Alpine` (with the script that made it) and every `alpine:init`, so the
 * test can tell how many Alpines started and whose `window.Alpine` is.
 */
const WATCH_ALPINE = `
  window.__alpineSets = [];
  window.__alpineInits = 0;
  let current;
  Object.defineProperty(window, 'Alpine', {
    configurable: true,
    get: () => current,
    set: (value) => {
      current = value;
      window.__alpineSets.push({ src: document.currentScript ? document.currentScript.src : null, value });
    },
  });
  document.addEventListener('alpine:init', () => { window.__alpineInits += 1; });
`;

describe('the standalone bell on a page with its own Alpine', () => {
  let browser: Browser;
  let running: RunningCenter;

  beforeAll(async () => {
    const alpine = await readFile(ALPINE_FILE, 'utf8');
    [browser, running] = await startTogether([
      launchChromium(),
      startCenter({}, (inner, center) => {
        const app = new Hono();
        app.get('/vendor/alpine.js', (c) => c.body(alpine, 200, { 'content-type': 'text/javascript' }));
        app.get('/own-alpine/:order', async (c) => {
          const order = PAGES[c.req.param('order') as keyof typeof PAGES];
          if (!order) return c.notFound();
          const bell = await renderSignedInBell(c, center, { broadcasting: false });
          if (!bell) return c.redirect('/login', 303);
          return c.html(
            `<!doctype html><html lang="en"><head>${bell.tags.meta}${bell.tags.css}${order.head}</head><body>
<p x-data="{ n: 20 }"><span id="own" x-text="n + 1"></span></p>
${bell.html}${bell.tags.js}${order.end}</body></html>`,
          );
        });
        app.route('/', inner);
        return app;
      }),
    ]);
    await seed(running.center.store, 'alice', [
      { title: 'First', message: 'one', minutesAgo: 1 },
      { title: 'Second', message: 'two', minutesAgo: 2 },
      { title: 'Third', message: 'three', minutesAgo: 3 },
    ]);
  });

  afterAll(async () => {
    await browser?.close();
    await running?.stop();
  });

  for (const order of Object.keys(PAGES) as Array<keyof typeof PAGES>) {
    it(`registers with the page's Alpine loaded ${order} the bell's script`, async () => {
      const { context, page, errors } = await signIn(browser, running.base, 'alice');
      await page.addInitScript(WATCH_ALPINE);
      await page.goto(`${running.base}/own-alpine/${order}`);

      await expect.poll(() => page.locator('.herald-bell__badge').textContent()).toBe('3');
      expect(await page.locator('#own').textContent()).toBe('21'); // the page's own component runs
      const alpine = await page.evaluate(() => {
        const w = window as unknown as {
          Alpine: { store(name: string): { unreadCount: number } | undefined; version: string };
          __alpineSets: Array<{ src: string | null; value: unknown }>;
          __alpineInits: number;
        };
        return {
          sets: w.__alpineSets.map((set) => set.src),
          isThePagesAlpine: w.__alpineSets[0]?.value === w.Alpine,
          inits: w.__alpineInits,
          unread: w.Alpine.store('notifications')?.unreadCount,
          bellStoreIsOnIt:
            w.Alpine.store('notifications') ===
            (
              window as unknown as { HeraldNotificationBell: { notificationStore(): unknown } }
            ).HeraldNotificationBell.notificationStore(),
        };
      });
      expect(alpine).toEqual({
        sets: [`${running.base}/vendor/alpine.js`],
        isThePagesAlpine: true,
        inits: 1,
        unread: 3,
        bellStoreIsOnIt: true,
      });

      await page.locator('.herald-bell__button').click();
      await expect.poll(() => page.locator('.herald-bell__item').count()).toBe(3);
      expect(await page.locator('.herald-bell__item').count()).toBe(3); // rendered once, by one Alpine
      expect(errors).toEqual([]);
      await context.close();
    });
  }
});
