import { until } from '@herald/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_TOKEN, configDir, readLiveLog, signIn } from './console-support.js';
import { PusherClient } from './pusher-client.js';
import { type RunningBin, startBin } from './run-bin.js';

// The console's HTTP side without a browser: who gets in, what a state-changing request needs, what is hidden,
// and the live log as server-sent events. One server (under a path prefix) for the whole file.

const APP = { id: 'shop', key: 'shop-key', secret: 'shop-secret-never-listed' };
const DATA_ROUTES = [
  ['GET', '/api/session'],
  ['GET', '/api/apps'],
  ['POST', '/api/apps/shop/secret'],
  ['GET', '/api/apps/shop/log'],
  ['GET', '/api/apps/shop/channels'],
  ['GET', '/api/apps/shop/channels/news'],
  ['POST', '/api/apps/shop/events'],
  ['GET', '/api/apps/shop/webhooks'],
  ['POST', '/api/apps/shop/webhooks/1/resend'],
  ['GET', '/api/apps/shop/usage'],
] as const;

describe('the console over HTTP', () => {
  let bin: RunningBin;
  let base: string;

  beforeAll(async () => {
    const cwd = configDir({
      // The tests' requests come from a trusted proxy: the sign-in limit reads the client from X-Forwarded-For.
      servers: { herald: { path: '/rt', trusted_proxies: ['127.0.0.1'] } },
      applications: [APP],
      console: { enabled: true, token: CONSOLE_TOKEN },
    });
    bin = await startBin([], { cwd });
    base = `http://127.0.0.1:${bin.port}/rt/console`;
  });

  afterAll(async () => {
    await bin?.stop();
  });

  it('prints its address without the token when the token comes from the config', () => {
    expect(bin.stdout).toContain(
      `Console: http://127.0.0.1:${bin.port}/rt/console  (sign in with console.token)`,
    );
    expect(bin.stdout).not.toContain(CONSOLE_TOKEN);
  });

  it('answers 401 with a JSON error on every data route without a session', async () => {
    for (const [method, path] of DATA_ROUTES) {
      const answer = await fetch(`${base}${path}`, { method });
      expect(answer.status, `${method} ${path}`).toBe(401);
      expect(await answer.json()).toMatchObject({ error: { code: 'unauthorized' } });
    }
    const forged = await fetch(`${base}/api/apps`, {
      headers: { cookie: 'herald_console=v1.9999999999999.x.y' },
    });
    expect(forged.status).toBe(401);
  });

  it('refuses a wrong token, and exchanges the right one for an HttpOnly SameSite=Strict cookie', async () => {
    const wrong = await fetch(`${base}?token=not-the-token`, { redirect: 'manual' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect(await wrong.text()).toContain('<form');
    const posted = await fetch(`${base}/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: `${CONSOLE_TOKEN}x` }),
    });
    expect(posted.status).toBe(401);

    const right = await fetch(`${base}?token=${CONSOLE_TOKEN}`, { redirect: 'manual' });
    expect(right.status).toBe(303);
    // The token is dropped from the address the browser goes on to.
    expect(right.headers.get('location')).toBe('/rt/console/');
    const cookie = right.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^herald_console=/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain('Path=/rt/console');
    const apps = await fetch(`${base}/api/apps`, { headers: { cookie: cookie.split(';')[0] as string } });
    expect(apps.status).toBe(200);
  });

  it('refuses a client address with 429 and Retry-After after ten wrong tokens, and only that address', async () => {
    const from = (address: string) => ({ 'x-forwarded-for': `${address}, 127.0.0.1` });
    for (let i = 0; i < 5; i++) {
      const link = await fetch(`${base}?token=wrong-${i}`, {
        headers: from('203.0.113.7'),
        redirect: 'manual',
      });
      expect(link.status).toBe(401);
      const form = await fetch(`${base}/api/session`, {
        method: 'POST',
        headers: { ...from('203.0.113.7'), 'content-type': 'application/x-www-form-urlencoded' },
        body: `token=wrong-${i}`,
        redirect: 'manual',
      });
      expect(form.status).toBe(401);
    }
    // Refused before the token is compared: the right one too.
    const limited = await fetch(`${base}/api/session`, {
      method: 'POST',
      headers: { ...from('203.0.113.7'), 'content-type': 'application/json' },
      body: JSON.stringify({ token: CONSOLE_TOKEN }),
    });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await limited.json()).toMatchObject({ error: { code: 'too_many_attempts' } });
    const link = await fetch(`${base}?token=${CONSOLE_TOKEN}`, {
      headers: from('203.0.113.7'),
      redirect: 'manual',
    });
    expect(link.status).toBe(429);
    expect(link.headers.get('set-cookie')).toBeNull();
    // Another client behind the same proxy is not held back.
    const other = await fetch(`${base}?token=${CONSOLE_TOKEN}`, {
      headers: from('203.0.113.8'),
      redirect: 'manual',
    });
    expect(other.status).toBe(303);
  });

  it('serves the page, and the sign-in form signs in too', async () => {
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(await page.text())?.[1];
    expect(script).toBeDefined();
    expect((await fetch(`${base}/${script}`)).headers.get('content-type')).toContain('javascript');
    const form = await fetch(`${base}/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${CONSOLE_TOKEN}`,
      redirect: 'manual',
    });
    expect(form.status).toBe(303);
    expect(form.headers.get('set-cookie')).toContain('HttpOnly');
  });

  it('refuses a state-changing request without the CSRF token or from another origin', async () => {
    const session = await signIn(base);
    const body = JSON.stringify({ channel: 'news', event: 'posted', data: '{}' });
    const headers = { cookie: session.cookie, 'content-type': 'application/json' };
    const missing = await fetch(`${base}/api/apps/shop/events`, { method: 'POST', headers, body });
    expect(missing.status).toBe(403);
    expect(await missing.json()).toMatchObject({ error: { code: 'csrf' } });
    const wrong = await fetch(`${base}/api/apps/shop/events`, {
      method: 'POST',
      headers: { ...headers, 'x-console-csrf': `${session.csrf}x` },
      body,
    });
    expect(wrong.status).toBe(403);
    const foreign = await fetch(`${base}/api/apps/shop/events`, {
      method: 'POST',
      headers: { ...headers, 'x-console-csrf': session.csrf, origin: 'https://evil.example' },
      body,
    });
    expect(foreign.status).toBe(403);
    const good = await fetch(`${base}/api/apps/shop/events`, {
      method: 'POST',
      headers: { ...headers, 'x-console-csrf': session.csrf, origin: `http://127.0.0.1:${bin.port}` },
      body,
    });
    expect(good.status).toBe(200);
    const bad = await fetch(`${base}/api/apps/shop/events`, {
      method: 'POST',
      headers: { ...headers, 'x-console-csrf': session.csrf },
      body: JSON.stringify({ channel: 'bad name!', event: 'x' }),
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: 'invalid_channel' } });
  });

  it('hides app secrets until one is asked for', async () => {
    const session = await signIn(base);
    const list = await (await fetch(`${base}/api/apps`, { headers: { cookie: session.cookie } })).text();
    expect(list).toContain('"shop-key"');
    expect(list).not.toContain(APP.secret);
    const revealed = await fetch(`${base}/api/apps/shop/secret`, {
      method: 'POST',
      headers: { cookie: session.cookie, 'x-console-csrf': session.csrf },
    });
    expect(await revealed.json()).toEqual({ secret: APP.secret });
  });

  it('streams connections, subscriptions and REST publishes of the app as server-sent events', async () => {
    const session = await signIn(base);
    const log = readLiveLog(`${base}/api/apps/shop/log`, session.cookie);
    const response = await log.opened;
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    // The server's path prefix applies to sockets too.
    const client = new PusherClient(APP.key, {
      cluster: 'mt1',
      wsHost: '127.0.0.1',
      wsPort: bin.port,
      wsPath: '/rt',
      forceTLS: false,
      enabledTransports: ['ws'],
      disableStats: true,
    });
    try {
      client.subscribe('news');
      await until(
        () => log.records.some((record) => record.kind === 'subscribed'),
        'the subscription in the log',
      );
      expect(log.records.find((record) => record.kind === 'connection_opened')).toMatchObject({
        appId: 'shop',
      });
      const data = JSON.stringify({ title: 'hello' });
      const published = await fetch(`${base}/api/apps/shop/events`, {
        method: 'POST',
        headers: {
          cookie: session.cookie,
          'x-console-csrf': session.csrf,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ channel: 'news', event: 'posted', data }),
      });
      expect(published.status).toBe(200);
      await until(
        () => log.records.some((record) => record.kind === 'api_message'),
        'the publish in the log',
      );
      expect(log.records.find((record) => record.kind === 'api_message')).toMatchObject({
        appId: 'shop',
        channel: 'news',
        event: 'posted',
        size: data.length,
      });
      client.disconnect();
      await until(
        () => log.records.some((record) => record.kind === 'connection_closed'),
        'the socket closing in the log',
      );
    } finally {
      client.disconnect();
      log.stop();
    }
  });
});
