import { randomBytes } from 'node:crypto';
import { type RedisProcess, sleep, startRedis, until } from '@herald/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterNodeDir } from './cluster-node-dir.js';
import { PusherClient, pusherJsClient } from './pusher-client.js';
import { pusherSdk } from './pusher-sdk.js';
import { socket } from './raw-socket.js';
import { type RunningBin, startBin } from './run-bin.js';

const APP = { id: 'shop', key: 'shop-key', secret: 'shop-secret' };

function nodeConfig(prefix: string, nodeId: string, redisPort: number): string {
  const config = {
    applications: [{ ...APP, enable_subscription_count: true, subscription_count_interval_ms: 200 }],
  };
  return clusterNodeDir({ prefix, nodeId, redisPort, config });
}

describe('subscription counts and watchlists across two nodes', () => {
  let redis: RedisProcess;
  let nodes: RunningBin[];

  beforeAll(async () => {
    redis = await startRedis();
    const prefix = `c${randomBytes(4).toString('hex')}:`;
    nodes = [
      await startBin([], { cwd: nodeConfig(prefix, 'a', redis.port) }),
      await startBin([], { cwd: nodeConfig(prefix, 'b', redis.port) }),
    ];
  });
  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    await redis.stop();
  });

  it('tells pusher-js on each node the cluster-wide count, throttled, ending on the true count', async () => {
    const [a, b] = nodes as [RunningBin, RunningBin];
    const watcher = new PusherClient(APP.key, {
      cluster: 'mt1',
      wsHost: '127.0.0.1',
      wsPort: a.port,
      forceTLS: false,
      enabledTransports: ['ws'],
      disableStats: true,
    });
    const counts: number[] = [];
    const channel = watcher.subscribe('scores');
    channel.bind('pusher:subscription_count', (data: { subscription_count: number }) =>
      counts.push(data.subscription_count),
    );
    await new Promise((resolve) => channel.bind('pusher:subscription_succeeded', resolve));

    // Twenty joins on the other node, all at once.
    const joiners = await Promise.all(Array.from({ length: 20 }, () => socket(b.port, '', APP)));
    const began = Date.now();
    await Promise.all(joiners.map((joiner) => joiner.subscribe('scores')));
    await until(() => counts.at(-1) === 21, 'a subscription_count of 21');
    expect(counts.at(-1)).toBe(21);
    // Counts go out on a 200 ms timer, not in answer to a frame: an interval, not a marker, shows none follows.
    await sleep(600);
    expect(counts.at(-1)).toBe(21);
    expect(counts.length).toBeLessThanOrEqual(Math.ceil((Date.now() - began) / 200) + 1);
    // A joiner on node b sees the same count.
    const seenOnB = joiners[0]?.frames.filter(
      (frame) => frame.event === 'pusher_internal:subscription_count',
    );
    expect(seenOnB?.at(-1)?.data).toEqual({ subscription_count: 21 });

    for (const joiner of joiners.slice(0, 10)) joiner.ws.close();
    await until(() => counts.at(-1) === 11, 'a subscription_count of 11');
    expect(counts.at(-1)).toBe(11);
    for (const joiner of joiners.slice(10)) joiner.ws.close();
    watcher.disconnect();
  });

  it('tells a pusher-js watcher on one node when watched users sign in and out on the other', async () => {
    const [a, b] = nodes as [RunningBin, RunningBin];
    type WatchEvent = { name: string; user_ids: string[] };
    const signedIn = async (port: number, user: { id: string; watchlist?: string[] }) => {
      const client = pusherJsClient(port, APP.key, pusherSdk(APP, port), user);
      const events: WatchEvent[] = [];
      client.user.watchlist.bind('online', (event: WatchEvent) => events.push(event));
      client.user.watchlist.bind('offline', (event: WatchEvent) => events.push(event));
      client.signin();
      await client.user.signinDonePromise;
      return { client, events };
    };
    const early = await signedIn(b.port, { id: 'early' });
    const watcher = await signedIn(a.port, { id: 'watcher', watchlist: ['early', 'late'] });
    await until(() => watcher.events.length >= 1);
    expect(watcher.events[0]).toEqual({ name: 'online', user_ids: ['early'] });
    const late = await signedIn(b.port, { id: 'late' });
    await until(() => watcher.events.length >= 2);
    expect(watcher.events[1]).toEqual({ name: 'online', user_ids: ['late'] });
    late.client.disconnect();
    await until(() => watcher.events.length >= 3);
    expect(watcher.events[2]).toEqual({ name: 'offline', user_ids: ['late'] });
    // Another offline would come from node b, ahead of a marker sent to the watcher through it.
    const marker = new Promise((resolve) => watcher.client.user.bind('marker', resolve));
    await pusherSdk(APP, b.port).sendToUser('watcher', 'marker', {});
    await marker;
    expect(watcher.events).toHaveLength(3);
    early.client.disconnect();
    watcher.client.disconnect();
  });
});
