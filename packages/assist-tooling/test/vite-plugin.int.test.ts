import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, describe, expect, it } from 'vitest';
import { BROWSER_LOG_FILE, readBrowserEntries } from '../src/browser/log-store.js';
import { assistVite } from '../src/browser/middleware.js';
import { type AssistConfig, defaultConfig } from '../src/config.js';

const servers: ViteDevServer[] = [];
const roots: string[] = [];

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A real Vite dev server on a random loopback port, serving a one-page project with the plugin. */
async function startVite(options: { config?: AssistConfig; cspNonce?: string }) {
  const root = mkdtempSync(join(tmpdir(), 'assist-vite-'));
  roots.push(root);
  writeFileSync(
    join(root, 'index.html'),
    '<!doctype html><html><head><title>Vite app</title></head><body><div id="app"></div></body></html>',
  );
  const server = await createServer({
    root,
    configFile: false,
    logLevel: 'silent',
    cacheDir: join(root, '.vite'),
    optimizeDeps: { noDiscovery: true, include: [] },
    server: { host: '127.0.0.1', port: 0, strictPort: false, ws: false },
    ...(options.cspNonce ? { html: { cspNonce: options.cspNonce } } : {}),
    plugins: [assistVite(options.config ? { config: options.config } : {})],
  });
  servers.push(server);
  await server.listen();
  const { port } = server.httpServer!.address() as AddressInfo;
  return { root, base: `http://127.0.0.1:${port}` };
}

const batch = {
  logs: [
    {
      level: 'error',
      time: '2026-01-02T03:04:05.000Z',
      url: 'http://127.0.0.1/cart',
      args: [
        'checkout failed',
        {
          name: 'TypeError',
          message: 'x is undefined',
          stack: 'TypeError: x is undefined\n    at pay (cart.ts:3:7)',
        },
      ],
    },
  ],
};

describe('assistVite in a real Vite dev server', () => {
  it('puts the watcher into index.html with the configured CSP nonce and stores posted logs', async () => {
    const { root, base } = await startVite({ config: defaultConfig(), cspNonce: 'n0nce-1' });
    const html = await (await fetch(`${base}/`)).text();
    expect(html).toContain('<script data-assist-watcher nonce="n0nce-1">');
    expect(html.indexOf('data-assist-watcher')).toBeLessThan(html.indexOf('</head>'));

    const posted = await fetch(`${base}/_assist/browser-logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(batch),
    });
    expect(posted.status).toBe(204);
    // sendBeacon posts text/plain: the same batch is accepted.
    const beacon = await fetch(`${base}/_assist/browser-logs`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ logs: [{ level: 'warn', args: ['slow render'] }] }),
    });
    expect(beacon.status).toBe(204);
    expect(readBrowserEntries(root)).toEqual([
      {
        time: '2026-01-02T03:04:05.000Z',
        level: 'error',
        message: 'checkout failed TypeError: x is undefined',
        stack: 'TypeError: x is undefined\n    at pay (cart.ts:3:7)',
        url: 'http://127.0.0.1/cart',
      },
      expect.objectContaining({ level: 'warn', message: 'slow render' }),
    ]);
    const refused = await fetch(`${base}/_assist/browser-logs`, { method: 'POST', body: 'not json' });
    expect(refused.status).toBe(400);
  });

  it('adds the watcher without a nonce attribute when the page has none', async () => {
    const { base } = await startVite({ config: defaultConfig() });
    const html = await (await fetch(`${base}/`)).text();
    expect(html).toContain('<script data-assist-watcher>');
  });

  it('does nothing with browser_logs_watcher off: no script, no route', async () => {
    const { root, base } = await startVite({ config: { ...defaultConfig(), browser_logs_watcher: false } });
    expect(await (await fetch(`${base}/`)).text()).not.toContain('data-assist-watcher');
    const posted = await fetch(`${base}/_assist/browser-logs`, {
      method: 'POST',
      body: JSON.stringify(batch),
    });
    expect(posted.status).not.toBe(204);
    expect(() => readFileSync(join(root, BROWSER_LOG_FILE))).toThrow();
  });
});
