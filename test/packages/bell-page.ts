import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { until } from '@herald/test-kit';
import { chromium } from 'playwright-core';
import { repoRoot } from './workspace.js';

/** The slice of the workspace's @herald/notifications build the page needs (the real store and JSON API). */
interface NotificationsModule {
  createNotificationStore(options: object): Promise<{ close(): Promise<void> }>;
  createNotifier(options: object): {
    notifiable(who: object): { notify(notification: object): Promise<{ ok: boolean }> };
  };
  createDatabaseChannel(options: object): object;
  createNotificationApi(options: object): { fetch(request: Request): Response | Promise<Response> };
}

const CONTENT_TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css' };

async function toRequest(req: IncomingMessage, base: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(key, value);
  }
  const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
  return new Request(new URL(req.url ?? '/', base), { method: req.method, headers, body });
}

/**
 * The README's "A plain page" in headless Chromium, as written: the page's markup, with the stylesheet and the
 * script served from the installed package's dist/ at the paths the README uses, and the real notification JSON
 * API of @herald/notifications (the workspace build, an in-memory store holding one unread notification for the
 * page's user) answering at its default path. The live connection the README configures (127.0.0.1:8080) is left
 * as written: nothing needs to answer there, the bell polls meanwhile.
 */
export async function runPlainPage(options: {
  consumer: string;
  name: string;
  markup: string;
}): Promise<void> {
  const dist = join(options.consumer, 'node_modules', options.name, 'dist');
  const notifications = (await import(
    pathToFileURL(join(repoRoot, 'packages/notifications/dist/index.js')).href
  )) as NotificationsModule;
  const store = await notifications.createNotificationStore({});
  const notifier = notifications.createNotifier({
    channels: { database: notifications.createDatabaseChannel({ store }) },
  });
  const sent = await notifier.notifiable({ type: 'User', id: 'alice' }).notify({
    via: () => ['database'],
    toDatabase: () => ({ title: 'Invoice paid', message: 'Invoice #12 was paid' }),
  });
  if (!sent.ok) throw new Error('could not store the notification');
  const api = notifications.createNotificationApi({
    store,
    authenticate: () => ({ id: 'alice' }),
    csrfToken: () => 'csrf-token',
  });
  const page = `<!doctype html><html lang="en"><head><title>Bell</title></head><body>\n${options.markup}\n</body></html>`;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const asset = /^\/assets\/notification-bell\/(notification-bell\.(?:js|css))$/.exec(path)?.[1];
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(page);
    } else if (asset && !existsSync(join(dist, asset))) {
      res.writeHead(404).end();
    } else if (asset) {
      const type = CONTENT_TYPES[asset.slice(asset.lastIndexOf('.'))] ?? 'application/octet-stream';
      res.writeHead(200, { 'content-type': type }).end(readFileSync(join(dist, asset)));
    } else {
      void toRequest(req, 'http://127.0.0.1')
        .then((request) => api.fetch(request))
        .then(async (response) => {
          res.writeHead(response.status, Object.fromEntries(response.headers));
          res.end(Buffer.from(await response.arrayBuffer()));
        })
        .catch((error: unknown) => res.writeHead(500).end(String(error)));
    }
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  try {
    const tab = await browser.newPage();
    const errors: string[] = [];
    tab.on('pageerror', (error) => errors.push(error.message));
    await tab.goto(`http://127.0.0.1:${port}/`);
    const button = tab.locator('.herald-bell__button');
    await until(
      async () => {
        const label = await button.getAttribute('aria-label', { timeout: 5_000 });
        if (label !== 'Notifications, 1 unread') throw new Error(`the bell says "${label}"`);
      },
      { limitMs: 60_000 },
    );
    // Evaluated in the page (as text: this file is not compiled with the DOM library).
    const api = (await tab.evaluate('Object.keys(window.HeraldNotificationBell ?? {}).sort()')) as string[];
    if (!api.includes('make')) throw new Error(`window.HeraldNotificationBell has ${api.join(', ')}`);
    await button.click();
    await until(
      async () => {
        const text = (await tab.locator('.herald-bell__list').textContent({ timeout: 5_000 })) ?? '';
        if (!text.includes('Invoice paid')) throw new Error(`the list shows "${text}"`);
      },
      { limitMs: 60_000 },
    );
    const accent = (await tab.evaluate(
      "getComputedStyle(document.querySelector('.herald-bell')).getPropertyValue('--herald-bell-accent')",
    )) as string;
    const hasStyles = accent.trim() !== '';
    if (!hasStyles) throw new Error('the stylesheet did not apply (no --herald-bell-accent on .herald-bell)');
    if (errors.length > 0) throw new Error(`the page threw: ${errors.join('; ')}`);
  } finally {
    await browser.close();
    await new Promise((resolve) => server.close(resolve));
    await store.close();
  }
}
