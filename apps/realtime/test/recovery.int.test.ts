import { Agent } from 'node:http';
import { silentLogger } from '@herald/realtime-server';
import { enableRecovery } from '@herald/recovery';
import { fence, freePort, sleep, startTcpProxy, type TcpProxy, until } from '@herald/test-kit';
import Pusher from 'pusher';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { configSchema } from '../src/config-schema.js';
import { type RunningRealtime, startRealtime } from '../src/start.js';
import { networkOutage } from './network-outage.js';
import { type PusherClient, pusherJsClient } from './pusher-client.js';
import { pusherSdk } from './pusher-sdk.js';

// Issue 26 on one node: pusher-js with @herald/recovery behind a TCP proxy the test cuts, the official `pusher` SDK
// publishing a steady stream, and the client ending with every event exactly once, in order.

const APP = { id: 'shop', key: 'shop-key', secret: 'shop-secret' };
const PLAIN = { id: 'plain', key: 'plain-key', secret: 'plain-secret' };

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function boot(
  history: Record<string, unknown> = { enabled: true },
  port = 0,
): Promise<{ port: number; close: () => Promise<void> }> {
  const config = configSchema.parse({
    transport: process.env.REALTIME_TRANSPORT ?? 'auto',
    servers: { herald: { host: '127.0.0.1', port, shutdown_grace_period: 0 } },
    applications: [{ ...APP, history }, PLAIN],
  });
  const running: RunningRealtime = await startRealtime(config, silentLogger);
  let closing: Promise<void> | undefined;
  // Closed once, by the test (a restart) or after it.
  const close = () => {
    closing ??= running.close();
    return closing;
  };
  cleanups.push(close);
  return { port: running.port, close };
}

async function proxyTo(port: number): Promise<TcpProxy> {
  const proxy = await startTcpProxy({ host: '127.0.0.1', port });
  cleanups.push(() => proxy.close());
  return proxy;
}

/** A pusher-js client with the plugin, connected through the proxy; counts its channel authorisations. */
function recoveringClient(port: number, options: { plugin?: boolean } = {}) {
  const sdk = pusherSdk(APP, port);
  const authorised: string[] = [];
  const signer = {
    authorizeChannel: (socketId: string, channel: string) => {
      authorised.push(channel);
      return sdk.authorizeChannel(socketId, channel);
    },
  };
  const pusher: PusherClient = pusherJsClient(port, APP.key, signer);
  cleanups.push(() => pusher.disconnect());
  const recovery = options.plugin === false ? undefined : enableRecovery(pusher);
  return { pusher, recovery, authorised };
}

/** Subscribes and records the `tick` events' numbers and every `herald:recovery_failed`. */
async function listen(pusher: PusherClient, name: string) {
  const ticks: number[] = [];
  const failures: Array<{ reason: string; first_serial: number | null }> = [];
  const channel = pusher.subscribe(name);
  channel.bind('tick', (data: { i: number }) => ticks.push(data.i));
  channel.bind('herald:recovery_failed', (data: { reason: string; first_serial: number | null }) =>
    failures.push(data),
  );
  await new Promise<void>((resolve) => channel.bind('pusher:subscription_succeeded', () => resolve()));
  return { ticks, failures };
}

describe('recovery across a reconnect, one node', () => {
  for (const name of ['orders', 'private-orders']) {
    it(`delivers every event of a steady stream exactly once, in order, across a cut (${name})`, async () => {
      // Room for everything published while away, however long pusher-js takes to come back.
      const running = await boot({ enabled: true, max_events_per_channel: 1000 });
      const proxy = await proxyTo(running.port);
      const { pusher, authorised } = recoveringClient(proxy.port);
      const sdk = pusherSdk(APP, running.port);
      const { ticks } = await listen(pusher, name);

      let published = 0;
      let streaming = true;
      const publishing = (async () => {
        while (streaming) {
          published += 1;
          await sdk.trigger(name, 'tick', { i: published });
          // A steady stream, not a burst: events keep coming before, during and after the cut.
          await sleep(25);
        }
      })();
      await until(() => ticks.length >= 20, { what: '20 events before the cut' });
      // The network is away for a few seconds while the stream goes on.
      await networkOutage(proxy, pusher, () => sleep(2_000));
      const atReconnect = published;
      await until(() => published >= atReconnect + 20, { what: '20 more events after the reconnect' });
      streaming = false;
      await publishing;
      const total = published;
      await until(() => ticks.length >= total, { what: `all ${total} events`, limitMs: 90_000 });
      await fence({
        received: () => ticks,
        sendMarker: () => sdk.trigger(name, 'tick', { i: total + 1 }),
        isMarker: (i) => i === total + 1,
      });
      expect(ticks).toEqual(Array.from({ length: total + 1 }, (_, i) => i + 1));
      if (name.startsWith('private-')) {
        // No replay without authorisation: the resubscribe after the reconnect was signed again.
        expect(authorised.filter((channel) => channel === name).length).toBeGreaterThanOrEqual(2);
      }
    });
  }

  it('tells the channel herald:recovery_failed "trimmed" when more was missed than is kept', async () => {
    const { sdk, ticks, failures } = await awayAndBack(
      { enabled: true, max_events_per_channel: 5 },
      async (sdk) => {
        for (let i = 2; i <= 11; i += 1) await sdk.trigger('orders', 'tick', { i });
      },
    );
    await until(() => failures.length === 1, { what: 'herald:recovery_failed' });
    // Serials 2..11 were published while away; the last five (7..11) are kept.
    expect(failures).toEqual([{ reason: 'trimmed', first_serial: 7 }]);
    expect(ticks).toEqual([1]);
    await sdk.trigger('orders', 'tick', { i: 12 });
    await until(() => ticks.includes(12), { what: 'live events after the failure' });
    expect(ticks).toEqual([1, 12]);
  });

  it('tells the channel herald:recovery_failed "expired" when the missed events aged out', async () => {
    const { ticks, failures } = await awayAndBack({ enabled: true, max_age_seconds: 1 }, async (sdk) => {
      await sdk.trigger('orders', 'tick', { i: 2 });
      // Longer than the app's max_age_seconds: the condition under test is the age itself.
      await sleep(1_500);
    });
    await until(() => failures.length === 1, { what: 'herald:recovery_failed' });
    expect(failures).toEqual([{ reason: 'expired', first_serial: null }]);
    expect(ticks).toEqual([1]);
  });

  it('tells the channel herald:recovery_failed "restarted" after the server restarted', async () => {
    const port = await freePort();
    const first = await boot({ enabled: true }, port);
    const proxy = await proxyTo(port);
    const { pusher } = recoveringClient(proxy.port);
    const { ticks, failures } = await listen(pusher, 'orders');
    await new Pusher({ ...sdkOptions(port), agent: new Agent({ keepAlive: false }) }).trigger(
      'orders',
      'tick',
      {
        i: 1,
      },
    );
    await until(() => ticks.length === 1, { what: 'the first event' });
    // The server restarts while the client's network is away: the client learns when it is back.
    const sdk = new Pusher({ ...sdkOptions(port), agent: new Agent({ keepAlive: false }) });
    await networkOutage(proxy, pusher, async () => {
      await first.close();
      await boot({ enabled: true }, port);
      // A new connection for the new process: a kept-alive socket to the old one would be reused otherwise.
      await sdk.trigger('orders', 'tick', { i: 2 });
    });
    await until(() => failures.length === 1, { what: 'herald:recovery_failed' });
    // The new life's serial 1 is not the old life's serial 1: the client is told, not handed a wrong replay.
    expect(failures).toEqual([{ reason: 'restarted', first_serial: 1 }]);
    await sdk.trigger('orders', 'tick', { i: 3 });
    await until(() => ticks.includes(3), { what: 'live events after the failure' });
    expect(ticks).toEqual([1, 3]);
  });

  it('tells a client that asks for a replay on an app without history "disabled"', async () => {
    const running = await boot();
    const frames = await rawFrames(running.port, PLAIN.key, {
      channel: 'orders',
      herald_after: 3,
      herald_epoch: 'anything',
    });
    await until(() => frames.some((text) => text.includes('herald:recovery_failed')), {
      what: 'the failure',
    });
    expect(frames.slice(1)).toEqual([
      '{"event":"pusher_internal:subscription_succeeded","channel":"orders","data":"{}"}',
      '{"event":"herald:recovery_failed","channel":"orders","data":"{\\"reason\\":\\"disabled\\",\\"first_serial\\":null}"}',
    ]);
  });
});

describe('clients without the plugin', () => {
  it('get frames byte for byte as before from an app without history', async () => {
    const running = await boot();
    const frames = await rawFrames(running.port, PLAIN.key, { channel: 'orders' });
    await until(() => frames.length === 2, { what: 'the confirmation' });
    await pusherSdk(PLAIN, running.port).trigger('orders', 'tick', { i: 1 });
    await until(() => frames.length === 3, { what: 'the event' });
    expect(frames.slice(1)).toEqual([
      '{"event":"pusher_internal:subscription_succeeded","channel":"orders","data":"{}"}',
      '{"event":"tick","channel":"orders","data":"{\\"i\\":1}"}',
    ]);
  });

  it('receive events of an app with history as before, and miss what came while away, as before', async () => {
    const { sdk, ticks, failures } = await awayAndBack(
      { enabled: true },
      (sdk) => sdk.trigger('orders', 'tick', { i: 2 }),
      { plugin: false },
    );
    await fence({
      received: () => ticks,
      sendMarker: () => sdk.trigger('orders', 'tick', { i: 3 }),
      isMarker: (i) => i === 3,
    });
    expect(ticks).toEqual([1, 3]);
    expect(failures).toEqual([]);
  });
});

/**
 * A client (with the plugin unless told otherwise) that receives event 1 on `orders`, is cut off while `away` runs
 * (publishing, waiting), and comes back by itself.
 */
async function awayAndBack(
  history: Record<string, unknown>,
  away: (sdk: ReturnType<typeof pusherSdk>) => Promise<unknown>,
  options: { plugin?: boolean } = {},
) {
  const running = await boot(history);
  const proxy = await proxyTo(running.port);
  const { pusher } = recoveringClient(proxy.port, options);
  const sdk = pusherSdk(APP, running.port);
  const { ticks, failures } = await listen(pusher, 'orders');
  await sdk.trigger('orders', 'tick', { i: 1 });
  await until(() => ticks.length === 1, { what: 'the first event' });
  await networkOutage(proxy, pusher, () => away(sdk));
  return { sdk, ticks, failures };
}

/** The official SDK's options for the test app on a port. */
function sdkOptions(port: number) {
  return {
    appId: APP.id,
    key: APP.key,
    secret: APP.secret,
    host: '127.0.0.1',
    port: String(port),
    useTLS: false,
  };
}

/** A raw WebSocket that subscribes with exactly `data` and records every frame's text. */
async function rawFrames(port: number, key: string, data: Record<string, unknown>): Promise<string[]> {
  const frames: string[] = [];
  const ws = new WebSocket(`ws://127.0.0.1:${port}/app/${key}?protocol=7`);
  cleanups.push(() => ws.close());
  ws.on('message', (raw) => frames.push(raw.toString()));
  await until(() => frames.length > 0, { what: 'connection_established' });
  ws.send(JSON.stringify({ event: 'pusher:subscribe', data }));
  return frames;
}
