import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { silentLogger } from '@herald/realtime-server';
import { enableRecovery } from '@herald/recovery';
import {
  fence,
  type RedisClusterProcesses,
  type RedisProcess,
  sleep,
  startRedis,
  startRedisCluster,
  startTcpProxy,
  type TcpProxy,
  until,
} from '@herald/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { configSchema } from '../src/config-schema.js';
import { type RunningRealtime, startRealtime } from '../src/start.js';
import { networkOutage } from './network-outage.js';
import { type PusherClient, pusherJsClient } from './pusher-client.js';
import { pusherSdk } from './pusher-sdk.js';

// Issue 26 across a cluster: three nodes on a redis-server (and on a three-master Redis Cluster) the test starts,
// sharing the Redis history. The `pusher` SDK publishes a steady stream through one node; pusher-js with
// @herald/recovery listens on another through a TCP proxy the test cuts, and reconnects by itself to a THIRD node.

// Room for everything published while away, however long pusher-js takes to come back.
const APP = {
  id: 'shop',
  key: 'shop-key',
  secret: 'shop-secret',
  history: { enabled: true, max_events_per_channel: 5000 },
};
// Keeps five events per channel: what a client misses past that is `trimmed`.
const SHORT = {
  id: 'short',
  key: 'short-key',
  secret: 'short-secret',
  history: { enabled: true, max_events_per_channel: 5 },
};

// Keeps five events per channel, for the history size test alone (the other apps' totals move with other tests).
const SIZED = {
  id: 'sized',
  key: 'sized-key',
  secret: 'sized-secret',
  history: { enabled: true, max_events_per_channel: 5 },
};

interface Layout {
  readonly name: string;
  readonly gaps: boolean;
  start(): Promise<{ scaling: Record<string, unknown>; redis: RedisAccess }>;
}

/** Runs a command on the Redis that holds `key` (its master, on a Redis Cluster). */
interface RedisAccess {
  command(key: string, words: readonly string[]): Promise<string>;
  stop(): Promise<void>;
}

/** Sends one inline command to a redis-server and answers its first reply line. */
function inline(port: number, words: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`${words.join(' ')}\r\n`));
    socket.once('data', (reply) => {
      socket.end();
      resolve(reply.toString());
    });
    socket.once('error', reject);
  });
}

const layouts: Layout[] = [
  {
    name: 'a redis-server',
    gaps: true,
    async start() {
      const redis: RedisProcess = await startRedis();
      return {
        scaling: { server: { url: redis.url } },
        redis: { command: (_key, words) => inline(redis.port, words), stop: () => redis.stop() },
      };
    },
  },
  {
    name: 'a three-master Redis Cluster',
    gaps: false,
    async start() {
      const cluster: RedisClusterProcesses = await startRedisCluster();
      return {
        scaling: { cluster_mode: true, nodes: cluster.ports.map((port) => `127.0.0.1:${port}`) },
        redis: {
          command: async (key, words) => inline((await cluster.masterOf(key)).port, words),
          stop: () => cluster.stop(),
        },
      };
    },
  },
];

describe.each(layouts)('recovery across three nodes on $name', (layout) => {
  const nodes: RunningRealtime[] = [];
  let redis: RedisAccess;
  let prefix: string;
  const cleanups: Array<() => unknown> = [];
  const port = (i: number) => (nodes[i] as RunningRealtime).port;

  beforeAll(async () => {
    const started = await layout.start();
    redis = started.redis;
    prefix = `rc${randomBytes(4).toString('hex')}:`;
    for (let i = 0; i < 3; i += 1) {
      const config = configSchema.parse({
        transport: process.env.REALTIME_TRANSPORT ?? 'auto',
        servers: { herald: { host: '127.0.0.1', port: 0, shutdown_grace_period: 0 } },
        applications: [APP, SHORT, SIZED],
        scaling: {
          enabled: true,
          prefix,
          node_id: `n${i}`,
          heartbeat_ms: 500,
          // Every scrape measures the history's size afresh (10 s of cache by default).
          history_size_cache_ms: 0,
          ...started.scaling,
        },
      });
      nodes.push(await startRealtime(config, silentLogger));
    }
  }, 120_000);
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  afterAll(async () => {
    await Promise.all(nodes.splice(0).map((node) => node.close()));
    await redis?.stop();
  });

  /** pusher-js with the plugin, through a proxy to node `i`; records the ticks and recovery failures of `name`. */
  async function listener(app: typeof APP, name: string, i: number) {
    const proxy: TcpProxy = await startTcpProxy({ host: '127.0.0.1', port: port(i) });
    cleanups.push(() => proxy.close());
    const sdk = pusherSdk(app, port(0));
    const pusher: PusherClient = pusherJsClient(proxy.port, app.key, sdk);
    cleanups.push(() => pusher.disconnect());
    enableRecovery(pusher);
    const ticks: number[] = [];
    const failures: Array<{ reason: string; first_serial: number | null }> = [];
    const channel = pusher.subscribe(name);
    channel.bind('tick', (data: { i: number }) => ticks.push(data.i));
    channel.bind('herald:recovery_failed', (data: (typeof failures)[number]) => failures.push(data));
    await new Promise<void>((resolve) => channel.bind('pusher:subscription_succeeded', () => resolve()));
    return { proxy, pusher, sdk, ticks, failures };
  }

  /** Takes the client's network away while `away` runs; pusher-js comes back by itself, on node `i`. */
  function moveTo(
    client: { proxy: TcpProxy; pusher: PusherClient },
    i: number,
    away: () => Promise<unknown>,
  ) {
    return networkOutage(client.proxy, client.pusher, away, { host: '127.0.0.1', port: port(i) });
  }

  it('delivers every event of a steady stream exactly once, in order, across a reconnect to another node', async () => {
    const name = `private-orders-${randomBytes(3).toString('hex')}`;
    const client = await listener(APP, name, 1);
    let published = 0;
    let streaming = true;
    const publishing = (async () => {
      while (streaming) {
        published += 1;
        await client.sdk.trigger(name, 'tick', { i: published });
        // A steady stream, not a burst: events keep coming before, during and after the move.
        await sleep(20);
      }
    })();
    try {
      await until(() => client.ticks.length >= 10, { what: '10 events before the cut' });
      // Away for a few seconds while the stream goes on; back on node 2.
      await moveTo(client, 2, () => sleep(2_000));
      const atReconnect = published;
      await until(() => published >= atReconnect + 20, { what: '20 more events after the reconnect' });
    } finally {
      streaming = false;
      await publishing;
    }
    const total = published;
    await until(() => client.ticks.length >= total, { what: `all ${total} events`, limitMs: 90_000 });
    await fence({
      received: () => client.ticks,
      sendMarker: () => client.sdk.trigger(name, 'tick', { i: total + 1 }),
      isMarker: (i) => i === total + 1,
    });
    expect(client.ticks).toEqual(Array.from({ length: total + 1 }, (_, i) => i + 1));
  });

  it('shows on one node’s /metrics the events and bytes an app’s history holds, published through two nodes', async () => {
    // The frames as the nodes fan them out, which is what the history keeps: a raw socket on node 0 records them.
    const frames: string[] = [];
    const ws = new WebSocket(`ws://127.0.0.1:${port(0)}/app/${SIZED.key}?protocol=7`);
    cleanups.push(() => ws.close());
    ws.on('message', (raw) => frames.push(raw.toString()));
    await until(() => frames.length === 1, { what: 'connection_established' });
    const channels = ['sized-a', 'sized-b', 'sized-c', 'sized-d'];
    for (const channel of channels) ws.send(JSON.stringify({ event: 'pusher:subscribe', data: { channel } }));
    await until(() => frames.filter((frame) => frame.includes('subscription_succeeded')).length === 4, {
      what: 'the subscriptions',
    });
    const through = [pusherSdk(SIZED, port(0)), pusherSdk(SIZED, port(1))];
    // 8 events on the first channel (the last 5 kept), 1 to 3 on the others, through both nodes in turn.
    const counts = [8, 1, 2, 3];
    let sent = 0;
    for (const [n, channel] of channels.entries()) {
      for (let i = 1; i <= (counts[n] as number); i += 1) {
        await (through[sent % 2] as ReturnType<typeof pusherSdk>).trigger(channel, 'tick', { i });
        sent += 1;
      }
    }
    const ticks = () => frames.filter((frame) => frame.startsWith('{"event":"tick"'));
    await until(() => ticks().length === sent, { what: `all ${sent} events on node 0` });
    const held = channels.flatMap((channel, n) =>
      ticks()
        .filter((frame) => frame.includes(`"channel":"${channel}"`))
        .slice(-Math.min(5, counts[n] as number)),
    );
    const bytes = held.reduce((sum, frame) => sum + Buffer.byteLength(frame), 0);
    const scrape = async () => {
      const text = await (await fetch(`http://127.0.0.1:${port(0)}/metrics`)).text();
      const value = (name: string) =>
        text.match(new RegExp(`^${name}\\{app_id="sized"\\} (\\d+)$`, 'm'))?.[1];
      return { events: value('herald_history_events'), bytes: value('herald_history_bytes') };
    };
    // The first measure may outlast a scrape's wait on a busy machine: that scrape shows no figures yet.
    await until(async () => (await scrape()).events !== undefined, { what: 'the history gauges' });
    expect(held).toHaveLength(5 + 1 + 2 + 3);
    expect(await scrape()).toEqual({ events: String(held.length), bytes: String(bytes) });
  });

  it.runIf(layout.gaps)(
    'tells a client back on another node "trimmed" when it missed more than is kept',
    async () => {
      const client = await listener(SHORT, 'orders', 1);
      await client.sdk.trigger('orders', 'tick', { i: 1 });
      await until(() => client.ticks.length === 1, { what: 'the first event' });
      await moveTo(client, 2, async () => {
        for (let i = 2; i <= 11; i += 1) await client.sdk.trigger('orders', 'tick', { i });
      });
      await until(() => client.failures.length === 1, { what: 'herald:recovery_failed' });
      // Serials 2..11 were published while away; the last five (7..11) are kept.
      expect(client.failures).toEqual([{ reason: 'trimmed', first_serial: 7 }]);
      await client.sdk.trigger('orders', 'tick', { i: 12 });
      await until(() => client.ticks.includes(12), { what: 'live events after the failure' });
      expect(client.ticks).toEqual([1, 12]);
    },
  );

  it.runIf(layout.gaps)('tells a client "restarted" when Redis lost the channel’s history', async () => {
    const client = await listener(APP, 'lost', 1);
    await client.sdk.trigger('lost', 'tick', { i: 1 });
    await until(() => client.ticks.length === 1, { what: 'the first event' });
    await moveTo(client, 2, async () => {
      // What a flushed or replaced Redis leaves of the channel: nothing.
      const tag = `${prefix}{hist:${APP.id}:lost}`;
      await redis.command(`${tag}:m`, ['DEL', `${tag}:m`, `${tag}:s`]);
      await client.sdk.trigger('lost', 'tick', { i: 2 });
    });
    await until(() => client.failures.length === 1, { what: 'herald:recovery_failed' });
    // The new history's serial 1 is not the old one's: the client is told, not handed a wrong replay.
    expect(client.failures).toEqual([{ reason: 'restarted', first_serial: 1 }]);
    await client.sdk.trigger('lost', 'tick', { i: 3 });
    await until(() => client.ticks.includes(3), { what: 'live events after the failure' });
    expect(client.ticks).toEqual([1, 3]);
  });
});
