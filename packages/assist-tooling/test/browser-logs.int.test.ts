import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { until } from '@herald/test-kit';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBrowserEntries } from '../src/browser/log-store.js';
import { assistExpress, assistHono } from '../src/browser/middleware.js';
import { cleanFixtures, copyFixtureApp, startAssistMcp } from './helpers.js';

let root: string;
let base: string;
let close: () => void;
let browser: Browser;
let mcp: Awaited<ReturnType<typeof startAssistMcp>>;

/** The fixture app with the assist middleware in front, as a developer wires it in development. */
async function appFor(development: boolean): Promise<Hono> {
  const { app: fixture } = (await import(pathToFileURL(join(root, 'src/app.ts')).href)) as { app: Hono };
  const app = new Hono();
  app.use(assistHono({ root, development }));
  app.get('/strict', (c) => {
    c.header('content-security-policy', "script-src 'nonce-r4nd0m'");
    return c.html(
      '<html><head></head><body><script nonce="r4nd0m">console.warn("under a strict CSP", { step: 2 })</script></body></html>',
    );
  });
  app.route('/', fixture);
  return app;
}

async function browserEntries(): Promise<{ level: string; message: string; stack?: string; url?: string }[]> {
  return JSON.parse((await mcp.call('browser-logs', { entries: 10 })).text).entries;
}

async function waitForEntries(count: number) {
  let entries: Awaited<ReturnType<typeof browserEntries>> = [];
  await until(async () => {
    entries = await browserEntries();
    return entries.length >= count;
  }, `${count} browser log entries`);
  return entries;
}

beforeAll(async () => {
  root = copyFixtureApp('mcp-app');
  const app = await appFor(true);
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  mcp = await startAssistMcp(root);
});

afterAll(async () => {
  await mcp?.client.close();
  await browser?.close();
  close?.();
  cleanFixtures();
});

describe('browser logs', () => {
  it('an error logged in a page in Chromium comes back through the browser-logs tool', async () => {
    expect(await browserEntries()).toEqual([]);
    const page = await browser.newPage();
    await page.goto(`${base}/`);
    const [entry] = await waitForEntries(1);
    expect(entry).toMatchObject({
      level: 'error',
      message: 'Error: checkout failed: card declined',
      url: `${base}/`,
    });
    expect(entry?.stack).toContain('checkout failed: card declined');
    await page.close();
  });

  it('the watcher carries the page CSP nonce, so it runs under a strict policy', async () => {
    const page = await browser.newPage();
    const blocked: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) blocked.push(message.text());
    });
    await page.goto(`${base}/strict`);
    const entries = await waitForEntries(2);
    expect(entries.at(-1)).toMatchObject({
      level: 'warn',
      message: 'under a strict CSP {"step":2}',
      url: `${base}/strict`,
    });
    expect(blocked).toEqual([]);
    await page.close();
  });

  it('outside development the route does not exist and pages are left alone', async () => {
    const app = await appFor(false);
    const post = await app.request('/_assist/browser-logs', { method: 'POST', body: '{"logs":[]}' });
    expect(post.status).toBe(404);
    const html = await (await app.request('/')).text();
    expect(html).not.toContain('data-assist-watcher');
    expect(html).toContain('<h1>Fixture</h1>');
  });

  it('refuses oversized and malformed batches', async () => {
    const big = JSON.stringify({ logs: [{ level: 'log', args: ['x'.repeat(70_000)] }] });
    expect((await fetch(`${base}/_assist/browser-logs`, { method: 'POST', body: big })).status).toBe(413);
    const tooMany = JSON.stringify({ logs: Array.from({ length: 51 }, () => ({ level: 'log', args: [] })) });
    expect((await fetch(`${base}/_assist/browser-logs`, { method: 'POST', body: tooMany })).status).toBe(400);
    expect((await fetch(`${base}/_assist/browser-logs`, { method: 'POST', body: 'not json' })).status).toBe(
      400,
    );
  });
});

describe('assistExpress', () => {
  it('serves the route and injects the watcher with the nonce into HTML a (req, res, next) server sends', async () => {
    const middleware = assistExpress({ root, development: true });
    const server = createServer((req, res) =>
      middleware(req, res, () => {
        res.setHeader('content-type', 'text/html; charset=utf-8');
        res.setHeader('content-security-policy', "script-src 'nonce-n0nc3'");
        res.write('<html><head><title>x</title></head>');
        res.end('<body>hello</body></html>');
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const page = await fetch(`${url}/`);
      const html = await page.text();
      expect(html).toMatch(/^<html><head><title>x<\/title><script data-assist-watcher nonce="n0nc3">/);
      expect(html.endsWith('</head><body>hello</body></html>')).toBe(true);
      expect(Number(page.headers.get('content-length'))).toBe(Buffer.byteLength(html));
      const batch = { logs: [{ level: 'info', args: ['from express', { n: 1 }], url: `${url}/` }] };
      const post = await fetch(`${url}/_assist/browser-logs`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify(batch),
      });
      expect(post.status).toBe(204);
      expect(readBrowserEntries(root).at(-1)).toMatchObject({
        level: 'info',
        message: 'from express {"n":1}',
      });
    } finally {
      server.close();
    }
  });
});
