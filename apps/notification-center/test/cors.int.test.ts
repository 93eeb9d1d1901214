import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signUserToken } from '@herald/notifications';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './browser.js';
import { type RunningCenter, startCenter } from './center-server.js';

const TOKEN_SECRET = 'host-backend-user-token-secret-0123456789';
const API_SECRET = 'center-send-secret-0123456789abcdef';

/**
 * A host page's server: one blank page, on its own origin. With `proxyTo`, it is also a reverse proxy that
 * forwards `/notification/…` and `/broadcasting/auth` to the service, so the page calls it on its own origin.
 */
async function hostPage(proxyTo?: () => string): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    const url = request.url ?? '/';
    if (proxyTo && (url.startsWith('/notification/') || url.startsWith('/broadcasting/'))) {
      const upstream = httpRequest(
        `${proxyTo()}${url}`,
        { method: request.method, headers: request.headers },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      request.pipe(upstream);
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>host</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('CORS for host pages on other origins', () => {
  let running: RunningCenter;
  let allowed: Awaited<ReturnType<typeof hostPage>>;
  let refused: Awaited<ReturnType<typeof hostPage>>;
  let proxied: Awaited<ReturnType<typeof hostPage>>;
  let browser: Browser;
  let token: string;

  beforeAll(async () => {
    [allowed, refused, proxied] = await Promise.all([hostPage(), hostPage(), hostPage(() => running.base)]);
    running = await startCenter('pglite', {
      NOTIFICATION_USER_TOKEN_SECRET: TOKEN_SECRET,
      NOTIFICATION_API_SECRET: API_SECRET,
      NOTIFICATION_CORS_ORIGINS: `https://other.example, ${allowed.origin}`,
    });
    token = await signUserToken({ secret: TOKEN_SECRET, userId: 'alice', expiresIn: '10m' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await running.stop();
    for (const host of [allowed, refused, proxied])
      await new Promise((resolve) => host.server.close(resolve));
  });

  const sendOne = async () => {
    const response = await fetch(`${running.base}/notification/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_SECRET}` },
      body: JSON.stringify({ recipients: 'alice', type: 'Cors', data: { title: 't', message: 'm' } }),
    });
    return ((await response.json()) as { data: { notifications: Array<{ id: string }> } }).data
      .notifications[0]?.id as string;
  };
  const preflight = (origin: string, path = '/notification/notifications/x/read.json') =>
    fetch(`${running.base}${path}`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'PATCH',
        // As the bell asks: its token and the X-Requested-With it adds to API calls.
        'access-control-request-headers': 'authorization,x-requested-with',
      },
    });

  /** Marks a notification read from a page on `origin`, with the user's token, calling `base`. */
  const write = async (origin: string, id: string, base = running.base) => {
    const page = await browser.newPage();
    try {
      await page.goto(origin);
      return await page.evaluate(
        async ({ base, bearer, notification }) => {
          try {
            const response = await fetch(`${base}/notification/notifications/${notification}/read.json`, {
              method: 'PATCH',
              headers: { authorization: `Bearer ${bearer}`, 'x-requested-with': 'XMLHttpRequest' },
            });
            return `status ${response.status}`;
          } catch (error) {
            return `refused: ${(error as Error).name}`;
          }
        },
        { base, bearer: token, notification: id },
      );
    } finally {
      await page.close();
    }
  };

  it('answers a preflight from an allowed origin, and gives a refused one no allowance', async () => {
    const yes = await preflight(allowed.origin);
    expect(yes.status).toBe(204);
    expect(yes.headers.get('access-control-allow-origin')).toBe(allowed.origin);
    expect(yes.headers.get('access-control-allow-methods')).toContain('PATCH');
    const allowedHeaders = yes.headers
      .get('access-control-allow-headers')
      ?.toLowerCase()
      .split(/\s*,\s*/);
    expect(allowedHeaders).toEqual(expect.arrayContaining(['authorization', 'x-requested-with']));
    expect(yes.headers.get('vary')?.toLowerCase()).toContain('origin');

    const no = await preflight(refused.origin);
    expect(no.headers.get('access-control-allow-origin')).toBeNull();
    // The send API is for servers: browsers are never allowed to call it.
    const send = await preflight(allowed.origin, '/notification/send');
    expect(send.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets a page on the allowed origin mark read with its token, and a refused origin not at all', async () => {
    const first = await sendOne();
    expect(await write(allowed.origin, first)).toBe('status 200');
    expect((await running.center.store.find({ type: 'User', id: 'alice' }, first))?.read_at).not.toBeNull();

    const second = await sendOne();
    expect(await write(refused.origin, second)).toBe('refused: TypeError');
    expect((await running.center.store.find({ type: 'User', id: 'alice' }, second))?.read_at).toBeNull();
  });

  it('needs no CORS at all behind a reverse proxy that serves the page and the service on one origin', async () => {
    const id = await sendOne();
    // The page calls its own origin (`''` base: a relative URL); the proxy is not in NOTIFICATION_CORS_ORIGINS.
    expect(await write(proxied.origin, id, '')).toBe('status 200');
    expect((await running.center.store.find({ type: 'User', id: 'alice' }, id))?.read_at).not.toBeNull();
  });

  it('serves the bell’s files to module scripts of any origin', async () => {
    const script = await fetch(`${running.base}/assets/notification-bell/notification-bell.js`, {
      headers: { origin: refused.origin },
    });
    expect(script.status).toBe(200);
    expect(script.headers.get('access-control-allow-origin')).toBe('*');
    await script.body?.cancel();
  });
});
