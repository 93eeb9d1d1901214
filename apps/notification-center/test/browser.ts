import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BellOptions,
  type NotificationStore,
  type RenderedBell,
  renderNotificationBell,
  silentNotificationLogger,
} from '@herald/notifications';
import { type ServerType, serve } from '@hono/node-server';
import type { Context, Hono } from 'hono';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { createNotificationCenter, type NotificationCenter } from '../src/center.js';
import { configFromEnv, DEMO_SESSION_SECRET } from '../src/config.js';
import { createSessions } from '../src/session.js';

/** The machine's Chromium, driven headless; nothing is ever downloaded. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** A notification center on a random port, with its data in a temp dir. */
export interface RunningCenter {
  readonly center: NotificationCenter;
  readonly base: string;
  stop(): Promise<void>;
}

/** Starts the notification center from environment-style settings, optionally wrapped by `extend`. */
export async function startCenter(
  env: Record<string, string>,
  extend?: (app: Hono, center: NotificationCenter) => Hono,
): Promise<RunningCenter> {
  const dataDir = await mkdtemp(join(tmpdir(), 'herald-nc-bell-'));
  const loaded = configFromEnv({ NOTIFICATION_PGLITE_DIR: dataDir, ...env });
  if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
  const center = await createNotificationCenter(loaded.config, silentNotificationLogger);
  const app = extend ? extend(center.app, center) : center.app;
  const server: ServerType = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    center,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      await new Promise((resolve) => server.close(resolve));
      await center.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

const sessions = createSessions(DEMO_SESSION_SECRET);

/**
 * The bell for a test page of its own, for the user signed in through the demo login (its CSRF token, the
 * center's bell assets): `undefined` when nobody is signed in.
 */
export async function renderSignedInBell(
  c: Context,
  center: NotificationCenter,
  options?: BellOptions,
): Promise<RenderedBell | undefined> {
  const user = await sessions.user(c);
  if (!user) return undefined;
  return renderNotificationBell({
    user,
    store: center.store,
    csrfToken: sessions.csrfToken(user),
    assets: {
      scriptUrl: '/assets/notification-bell/notification-bell.js',
      cssUrl: '/assets/notification-bell/notification-bell.css',
    },
    options,
  });
}

/** Stores notifications for a user directly, `minutesAgo` apart, oldest first in the array's end. */
export async function seed(
  store: NotificationStore,
  user: string,
  items: ReadonlyArray<{ title: string; message: string; minutesAgo: number } & Record<string, unknown>>,
): Promise<string[]> {
  const now = Date.now();
  const records = items.map(({ minutesAgo, ...data }) => ({
    id: randomUUID(),
    type: 'SeededNotification',
    notifiable_type: 'User',
    notifiable_id: user,
    data: data as { title: string; message: string },
    created_at: new Date(now - minutesAgo * 60_000),
  }));
  await store.insertMany(records);
  return records.map((record) => record.id);
}

/** The four window events the bell dispatches, recorded in the page as `window.__bellEvents`. */
export const RECORD_EVENTS = `
  window.__bellEvents = [];
  for (const name of ['notification:received', 'notification:marked-read', 'notification:all-marked-read', 'notification:deleted']) {
    window.addEventListener(name, (event) => window.__bellEvents.push({ name, detail: event.detail }));
  }
`;

/** A page in a fresh browser context, with page errors, console errors and failed responses collected. */
export async function openPage(
  browser: Browser,
  options: { colorScheme?: 'light' | 'dark'; viewport?: { width: number; height: number } } = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({
    colorScheme: options.colorScheme ?? 'light',
    viewport: options.viewport ?? { width: 1100, height: 760 },
    locale: 'en-US',
  });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    // Failed requests are reported below with their URL.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      errors.push(message.text());
    }
  });
  page.on('response', (response) => {
    if (response.status() >= 400 && !response.url().endsWith('/favicon.ico')) {
      errors.push(`${response.status()} ${response.request().method()} ${response.url()}`);
    }
  });
  return { context, page, errors };
}

/** A browser context signed in through the demo login, with page errors collected. */
export async function signIn(
  browser: Browser,
  base: string,
  user: string,
  options: { colorScheme?: 'light' | 'dark'; viewport?: { width: number; height: number } } = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const opened = await openPage(browser, options);
  await opened.page.addInitScript(RECORD_EVENTS);
  await opened.page.goto(`${base}/login`);
  await opened.page.selectOption('select[name=user]', user);
  await Promise.all([opened.page.waitForURL(`${base}/`), opened.page.click('form[action="/login"] button')]);
  return opened;
}

/** The events the page recorded. */
export function recordedEvents(page: Page): Promise<Array<{ name: string; detail: unknown }>> {
  return page.evaluate(
    () => (window as unknown as { __bellEvents: Array<{ name: string; detail: unknown }> }).__bellEvents,
  );
}
