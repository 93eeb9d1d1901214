import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RedisProcess, startRedis, until } from '@herald/test-kit';
import { startWebhookReceiver, type WebhookReceiver } from '@herald/webhooks/testing';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_TOKEN, configDir, startConsoleNodes } from './console-support.js';
import { pusherJsClient } from './pusher-client.js';
import { pusherSdk } from './pusher-sdk.js';
import { type RunningBin, startBin } from './run-bin.js';

// The console as an operator uses it, in headless Chromium against real servers: pusher-js clients, the `pusher`
// SDK for REST, a real webhook receiver, and (last) two nodes on a redis-server this file starts. One browser for
// the whole file. Screenshots for the README are written when CONSOLE_SCREENSHOTS is set.

const APP = { id: 'shop', key: 'shop-key', secret: 'shop-secret' };
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const DOCS = fileURLToPath(new URL('../docs/', import.meta.url));
const SCREENSHOTS = Boolean(process.env.CONSOLE_SCREENSHOTS);

function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** Serious and critical axe violations of the page as it is, in words a person can read. */
async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<unknown> } })
      .axe;
    const results = (await axe.run(document, { resultTypes: ['violations'] })) as {
      violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: string[] }> }>;
    };
    return results.violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

const tab = (page: Page, name: string) => page.getByRole('tab', { name });

async function shown(page: Page, selector: string, text?: string): Promise<void> {
  await until(
    async () => {
      const found = page.locator(selector);
      const matching = text === undefined ? found : found.filter({ hasText: text });
      return (await matching.count()) > 0 && (await matching.first().isVisible());
    },
    `${selector}${text ? ` with "${text}"` : ''} on the page`,
  );
}

// One browser for the whole file.
let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe('the operator console in a browser', () => {
  let bin: RunningBin;
  let receiver: WebhookReceiver;
  let page: Page;
  let base: string;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    receiver.answer = () => 503;
    const cwd = configDir({
      applications: [
        {
          ...APP,
          name: 'Shop',
          webhooks: [{ url: receiver.url, event_types: ['channel_occupied', 'member_added'] }],
        },
        { id: 'old', key: 'old-key', secret: 'old-secret', name: 'Retired', enabled: false },
      ],
      webhooks: {
        batching: { enabled: true, window_ms: 50 },
        retry: { max_elapsed_ms: 1500, base_ms: 100, max_ms: 300 },
      },
      console: { enabled: true, token: CONSOLE_TOKEN },
    });
    bin = await startBin([], { cwd });
    base = `http://127.0.0.1:${bin.port}/console`;
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  });

  afterAll(async () => {
    await page?.close();
    await bin?.stop();
    await receiver?.close();
  });

  it('asks for the token and refuses a wrong one, then signs in with it and drops it from the address', async () => {
    await page.goto(`${base}/`);
    await shown(page, 'h2', 'Sign in');
    await page.getByLabel('Console token').fill('not-the-token-at-all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await shown(page, '.error', 'not this server');
    expect(await page.locator('.app').count()).toBe(0);

    await page.goto(`${base}?token=${CONSOLE_TOKEN}`);
    expect(page.url()).toBe(`${base}/`);
    await shown(page, '.app h3', 'Shop');
    await shown(page, '.app[data-app="old"] .badge--off', 'disabled');
  });

  it('shows an event triggered through the pusher SDK in the live log', async () => {
    await tab(page, 'Live log').click();
    await shown(page, '.live', 'live');
    const started = Date.now();
    await pusherSdk(APP, bin.port).trigger('orders', 'order-created', { id: 42 });
    await shown(page, '.log__entry[data-kind="api_message"]', 'order-created');
    const elapsed = Date.now() - started;
    // The issue asks for "within a second"; the bound is looser only for a busy shared CI machine.
    expect(elapsed).toBeLessThan(3000);
    await expect
      .poll(() => page.locator('.log__entry').first().locator('.log__channel').textContent())
      .toBe('orders');
  });

  it('lists a presence member with its user_info, and drops them once they leave', async () => {
    const sdk = pusherSdk(APP, bin.port);
    const signer = {
      authorizeChannel: (socketId: string, channel: string) =>
        sdk.authorizeChannel(socketId, channel, { user_id: 'alice', user_info: { name: 'Alice Liddell' } }),
    };
    const client = pusherJsClient(bin.port, APP.key, signer);
    try {
      client.subscribe('presence-room');
      await tab(page, 'Channels').click();
      await shown(page, '.channel', 'presence-room');
      await page.locator('.channel', { hasText: 'presence-room' }).click();
      await shown(page, '.member', 'alice');
      expect(await page.locator('.member', { hasText: 'alice' }).textContent()).toContain(
        '{"name":"Alice Liddell"}',
      );
      // The live log saw the subscription too.
      client.unsubscribe('presence-room');
      await until(async () => (await page.locator('.member').count()) === 0, 'alice gone from the inspector');
    } finally {
      client.disconnect();
    }
  });

  it('shows failed webhook deliveries, and "Send again" delivers once the receiver is back', async () => {
    await tab(page, 'Webhooks').click();
    // The presence channel above made channel_occupied and member_added; the receiver refused them until retries
    // ran out.
    await shown(page, '.delivery[data-state="failed"]');
    expect(await page.locator('.delivery[data-state="failed"]').first().textContent()).toContain('503');
    expect(receiver.requests.every((request) => request.status === 503)).toBe(true);

    receiver.answer = () => 200;
    await page
      .locator('.delivery[data-state="failed"]')
      .first()
      .getByRole('button', { name: 'Send again' })
      .click();
    await until(() => receiver.requests.some((request) => request.status === 200), 'a delivered request');
    const delivered = receiver.requests.find((request) => request.status === 200);
    const verifier = pusherSdk(APP, bin.port).webhook({
      headers: delivered?.headers ?? {},
      rawBody: delivered?.rawBody ?? '',
    });
    expect(verifier.isValid()).toBe(true);
    await shown(page, '.delivery[data-state="delivered"]', 'sent again');
  });

  it('charts the messages counted in the last hour', async () => {
    const sdk = pusherSdk(APP, bin.port);
    for (let i = 0; i < 5; i++) await sdk.trigger('stats', 'tick', { i });
    await tab(page, 'Usage').click();
    // At least the five triggers (and the calls before them) counted in.
    await until(async () => {
      const text = (await page.locator('.totals[data-range="hour"]').textContent()) ?? '';
      return Number(/^(\d+) messages in/.exec(text)?.[1] ?? 0) >= 5;
    }, 'the hour total counting the triggers');
    const canvas = page.locator('#chart-hour canvas');
    await shown(page, '#chart-hour canvas');
    const box = await canvas.boundingBox();
    expect(box?.width).toBeGreaterThan(200);
    // Lines were drawn: the canvas is not blank.
    const inked = await page.evaluate(() => {
      const canvas = document.querySelector<HTMLCanvasElement>('#chart-hour canvas');
      const pixels = canvas?.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data ?? [];
      let count = 0;
      for (let i = 3; i < pixels.length; i += 4) if ((pixels[i] ?? 0) > 0) count += 1;
      return count;
    });
    expect(inked).toBeGreaterThan(100);
  });

  it('has no serious or critical axe violation, light and dark, and no sideways scroll at 375 px', async () => {
    const problems: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      for (const name of ['Apps', 'Webhooks']) {
        await tab(page, name).click();
        problems.push(...(await seriousViolations(page)).map((line) => `${colorScheme} ${name}: ${line}`));
        if (SCREENSHOTS) {
          await page.screenshot({ path: join(DOCS, `console-${name.toLowerCase()}-${colorScheme}.png`) });
        }
      }
    }
    expect(problems).toEqual([]);

    await page.setViewportSize({ width: 375, height: 800 });
    for (const name of ['Apps', 'Live log', 'Channels', 'Webhooks', 'Usage']) {
      await tab(page, name).click();
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(wide, `${name} at 375 px`).toBeLessThanOrEqual(375);
    }
    if (SCREENSHOTS) await page.screenshot({ path: join(DOCS, 'console-usage-phone.png'), fullPage: true });
    // Keyboard: the arrow keys move between the tabs.
    await tab(page, 'Apps').click();
    await page.keyboard.press('ArrowRight');
    expect(await tab(page, 'Live log').getAttribute('aria-selected')).toBe('true');
  });
});

describe('the live log across two nodes on Redis', () => {
  let redis: RedisProcess;
  let nodes: RunningBin[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    nodes = await startConsoleNodes(redis, APP);
  });

  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    await redis?.stop();
  });

  it('shows on node A an event published on node B', async () => {
    const [a, b] = nodes as [RunningBin, RunningBin];
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${a.port}/console?token=${CONSOLE_TOKEN}`);
    await tab(page, 'Live log').click();
    await shown(page, '.live', 'live');
    const sdk = pusherSdk(APP, b.port);
    // Node B learns that A watches the app through Redis; until then its events stay on B, so publish until one
    // arrives (each is a distinct event, and only B's count).
    let sent = 0;
    await until(async () => {
      sent += 1;
      await sdk.trigger('orders', `from-b-${sent}`, {});
      return (await page.locator('.log__entry', { hasText: 'on node node-b' }).count()) > 0;
    }, 'an event of node B in node A’s console');
    expect(await page.locator('.log__entry', { hasText: 'on node node-b' }).first().textContent()).toContain(
      'from-b-',
    );
  });
});
