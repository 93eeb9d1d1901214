import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { silentLogger } from '@herald/realtime-server';
import { enableRecovery } from '@herald/recovery';
import { sleep, startTcpProxy, type TcpProxy, until } from '@herald/test-kit';
import { build } from 'esbuild';
import Echo from 'laravel-echo';
import { type Browser, chromium } from 'playwright-core';
import type Pusher from 'pusher';
import PusherJs from 'pusher-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../src/config-schema.js';
import { type RunningRealtime, startRealtime } from '../src/start.js';
import { pusherSdk } from './pusher-sdk.js';

// Issue 26's client proofs on one node: Laravel Echo with `enableRecovery(echo.connector.pusher)`, and headless
// Chromium loading @herald/recovery as one browser bundle beside pusher-js's own browser build. Each client's
// connection is cut through a TCP proxy while the `pusher` SDK publishes a steady stream; the client ends with every
// event exactly once, in order. One server for the file.

const APP = { id: 'shop', key: 'shop-key', secret: 'shop-secret' };
const require = createRequire(import.meta.url);

let running: RunningRealtime;
let sdk: Pusher;
let browser: Browser | undefined;
const cleanups: Array<() => unknown> = [];

beforeAll(async () => {
  const config = configSchema.parse({
    transport: process.env.REALTIME_TRANSPORT ?? 'auto',
    servers: { herald: { host: '127.0.0.1', port: 0, shutdown_grace_period: 0 } },
    applications: [{ ...APP, history: { enabled: true, max_events_per_channel: 1000 } }],
  });
  running = await startRealtime(config, silentLogger);
  sdk = pusherSdk(APP, running.port);
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await browser?.close();
  await running?.close();
});

async function proxy(): Promise<TcpProxy> {
  const started = await startTcpProxy({ host: '127.0.0.1', port: running.port });
  cleanups.push(() => started.close());
  return started;
}

/** Publishes `tick` events numbered from 1 every 20 ms until stopped; answers how many went out. */
function stream(channel: string) {
  let published = 0;
  let streaming = true;
  const done = (async () => {
    while (streaming) {
      published += 1;
      await sdk.trigger(channel, 'tick', { i: published });
      await sleep(20);
    }
  })();
  return {
    get published() {
      return published;
    },
    async stop(): Promise<number> {
      streaming = false;
      await done;
      return published;
    },
  };
}

/**
 * The cut, with the stream going on: the proxy drops the client's socket and refuses for a while. pusher-js sees the
 * close at once and tries again a second later (an attempt that meets the refusing proxy fails, and pusher-js's
 * connection strategy then waits out a 15 s step timeout before the next: see network-outage.ts), so the proxy is
 * restored within that second and pusher-js comes back by itself.
 */
async function cutWhileStreaming(
  tcp: TcpProxy,
  client: { sawClose(): Promise<boolean>; socketId(): Promise<string | undefined> },
  publisher: { readonly published: number },
): Promise<void> {
  const before = await client.socketId();
  tcp.cut();
  await until(() => client.sawClose(), { what: 'the client to see the cut' });
  const atCut = publisher.published;
  await until(() => publisher.published >= atCut + 3, { what: 'events published while away' });
  tcp.restore();
  await until(
    async () => {
      const now = await client.socketId();
      return now !== undefined && now !== before;
    },
    { what: 'the client to reconnect by itself', limitMs: 90_000 },
  );
}

/** Lets the stream run on after the reconnect, stops it, and waits for every event it published. */
async function finish(
  publisher: ReturnType<typeof stream>,
  received: () => Promise<readonly number[]>,
): Promise<number[]> {
  const atReconnect = publisher.published;
  await until(() => publisher.published >= atReconnect + 10, { what: '10 more events after the reconnect' });
  const total = await publisher.stop();
  await until(async () => (await received()).length >= total, { what: `all ${total} events` });
  // The last event is in; anything duplicated or reordered is already in the list.
  return [...(await received())];
}

describe('recovery with Laravel Echo and in a browser', () => {
  it('Laravel Echo with enableRecovery(echo.connector.pusher) gets every event exactly once, in order', async () => {
    const tcp = await proxy();
    const echo = new Echo({
      broadcaster: 'pusher',
      key: APP.key,
      cluster: 'mt1',
      wsHost: '127.0.0.1',
      wsPort: tcp.port,
      forceTLS: false,
      enabledTransports: ['ws'],
      // pusher-js's CommonJS export is the class itself, as Echo's typings expect of `Pusher`.
      Pusher: PusherJs,
    });
    cleanups.push(() => echo.disconnect());
    enableRecovery(echo.connector.pusher);

    const ticks: number[] = [];
    await new Promise<void>((resolve) => {
      echo
        .channel('echo-orders')
        .listen('.tick', (data: { i: number }) => ticks.push(data.i))
        .subscribed(resolve);
    });
    let closed = false;
    echo.connector.pusher.connection.bind('error', () => {
      closed = true;
    });
    const publisher = stream('echo-orders');
    await until(() => ticks.length >= 10, { what: '10 events before the cut' });
    await cutWhileStreaming(
      tcp,
      { sawClose: async () => closed, socketId: async () => echo.socketId() },
      publisher,
    );
    const received = await finish(publisher, async () => ticks);
    expect(received).toEqual(Array.from({ length: received.length }, (_, i) => i + 1));
    expect(received.length).toBe(publisher.published);
  });

  it('headless Chromium with the bundled plugin and pusher-js gets every event exactly once, in order', async () => {
    // The package's ESM as one browser file: a Node built-in anywhere in it would fail this build.
    const bundled = await build({
      entryPoints: [require.resolve('@herald/recovery')],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      minify: true,
      write: false,
    });
    const recoveryJs = bundled.outputFiles[0]?.text ?? '';
    // The README prints this figure; it stays small.
    expect(gzipSync(recoveryJs).length).toBeLessThan(1024);
    const pusherJs = readFileSync(require.resolve('pusher-js/dist/web/pusher.min.js'), 'utf8');

    const tcp = await proxy();
    const site = await serve({
      '/': ['text/html', PAGE(tcp.port)],
      '/pusher.min.js': ['text/javascript', pusherJs],
      '/recovery.js': ['text/javascript', recoveryJs],
    });
    browser ??= await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    const page = await browser.newPage();
    cleanups.push(() => page.close());
    await page.goto(site);
    // Read in the page by expression: the test's types know no DOM.
    const inPage = (expression: string): Promise<unknown> => page.evaluate(expression);
    await until(async () => (await inPage('window.subscribed')) === true, { what: 'the page to subscribe' });

    const publisher = stream('browser-orders');
    await until(async () => ((await inPage('window.ticks.length')) as number) >= 10, {
      what: '10 events in the page before the cut',
    });
    await cutWhileStreaming(
      tcp,
      {
        sawClose: async () => (await inPage('window.cutSeen')) === true,
        socketId: async () => (await inPage('window.pusher.connection.socket_id')) as string | undefined,
      },
      publisher,
    );
    const received = await finish(publisher, async () => (await inPage('window.ticks')) as number[]);
    expect(received).toEqual(Array.from({ length: received.length }, (_, i) => i + 1));
    expect(received.length).toBe(publisher.published);
  });
});

/** Serves the files on a random loopback port (a page on a public origin may not open sockets to loopback). */
async function serve(files: Record<string, readonly [string, string]>): Promise<string> {
  const server = createServer((request, response) => {
    const file = files[new URL(request.url ?? '/', 'http://x').pathname];
    response.writeHead(file ? 200 : 404, { 'Content-Type': file ? file[0] : 'text/plain' });
    response.end(file ? file[1] : 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

/** The page: pusher-js's browser build as a classic script, the plugin bundle as a module. */
function PAGE(port: number): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>recovery</title>
<script src="/pusher.min.js"></script>
<script type="module">
  import { enableRecovery } from '/recovery.js';
  const pusher = new Pusher(${JSON.stringify(APP.key)}, {
    cluster: 'mt1', wsHost: '127.0.0.1', wsPort: ${port}, forceTLS: false, enabledTransports: ['ws'],
  });
  enableRecovery(pusher);
  Object.assign(window, { pusher, ticks: [], cutSeen: false, subscribed: false });
  pusher.connection.bind('error', () => { window.cutSeen = true; });
  const channel = pusher.subscribe('browser-orders');
  channel.bind('tick', (data) => window.ticks.push(data.i));
  channel.bind('pusher:subscription_succeeded', () => { window.subscribed = true; });
</script></head><body></body></html>`;
}
