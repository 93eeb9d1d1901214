import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signUserAuth } from '@herald/protocol-core';
import { startRedis, startRedisCluster, until } from '@herald/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pusherJsClient } from './pusher-client.js';
import { pusherSdk } from './pusher-sdk.js';
import { socket } from './raw-socket.js';
import { type RunningBin, startBin } from './run-bin.js';

// Three `realtime server` processes with interest routing (the default) on a redis-server and on a three-master
// Redis Cluster started here: what each node receives from Redis is read from its /metrics.

const APP = { id: 'shop', key: 'shop-key', secret: 'shop-secret' };
const LINGER_MS = 300;

type Scaling = { server?: { url: string }; cluster_mode?: boolean; nodes?: string[] };

const layouts: Array<{
  name: string;
  start: () => Promise<{ scaling: Scaling; stop: () => Promise<void> }>;
}> = [
  {
    name: 'a redis-server',
    async start() {
      const redis = await startRedis();
      return { scaling: { server: { url: `redis://127.0.0.1:${redis.port}` } }, stop: () => redis.stop() };
    },
  },
  {
    name: 'a three-master Redis Cluster',
    async start() {
      const cluster = await startRedisCluster();
      return {
        scaling: { cluster_mode: true, nodes: cluster.ports.map((port) => `127.0.0.1:${port}`) },
        stop: () => cluster.stop(),
      };
    },
  },
];

const sdk = (port: number) => pusherSdk(APP, port);

/** One sample of a node's /metrics (0 when the series is absent). */
async function metric(port: number, series: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const line = text.split('\n').find((each) => each.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

const received = (port: number) => metric(port, 'herald_cluster_messages_received_total');
const topics = (port: number) => metric(port, 'herald_cluster_topics');

describe.each(layouts)('interest routing between three nodes on $name', ({ start }) => {
  let stopRedis: () => Promise<void>;
  const nodes: RunningBin[] = [];
  const port = (i: number) => (nodes[i] as RunningBin).port;

  beforeAll(async () => {
    const redis = await start();
    stopRedis = redis.stop;
    const prefix = `ir${randomBytes(4).toString('hex')}:`;
    for (let i = 0; i < 3; i++) {
      const cwd = mkdtempSync(join(tmpdir(), `herald-ir${i}-`));
      writeFileSync(
        join(cwd, 'realtime.config.json'),
        JSON.stringify({
          applications: [APP],
          scaling: {
            enabled: true,
            prefix,
            node_id: `n${i}`,
            heartbeat_ms: 200,
            dead_after_ms: 1000,
            unsubscribe_delay_ms: LINGER_MS,
            ...redis.scaling,
          },
        }),
      );
      nodes.push(await startBin([], { cwd }));
    }
  }, 60_000);

  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    await stopRedis?.();
  });

  it('sends a channel only to the nodes holding its subscribers', async () => {
    const [here, there] = await Promise.all([socket(port(0)), socket(port(1))]);
    await here.subscribe('orders');
    await there.subscribe('orders');
    const idleBefore = await received(port(2));
    const busyBefore = await received(port(1));
    const events = 50;
    for (let i = 0; i < events; i++) await sdk(port(0)).trigger('orders', 'created', { i });
    await there.waitFor(
      (frame) => frame.event === 'created' && (frame.data as { i: number }).i === events - 1,
    );
    // Node 1 heard each event once, in order; node 2, with no subscriber of the channel, heard none of them.
    const heard = there.frames.filter((frame) => frame.event === 'created').map((frame) => frame.data);
    expect(heard).toEqual(Array.from({ length: events }, (_, i) => ({ i })));
    expect(await received(port(1))).toBeGreaterThanOrEqual(busyBefore + events);
    expect(await received(port(2))).toBe(idleBefore);
    here.ws.close();
    there.ws.close();
  });

  it('delivers everything published right after subscription_succeeded on a node new to the channel', async () => {
    const client = pusherJsClient(port(2), APP.key);
    try {
      for (let round = 0; round < 10; round++) {
        const name = `fresh-${round}-${randomBytes(3).toString('hex')}`;
        const channel = client.subscribe(name);
        const got = new Promise<unknown>((resolve) => channel.bind('first', resolve));
        // Published from another node the moment the client hears the confirmation.
        channel.bind('pusher:subscription_succeeded', () => {
          void sdk(port(0)).trigger(name, 'first', { round });
        });
        expect(await got).toEqual({ round });
        client.unsubscribe(name);
      }
    } finally {
      client.disconnect();
    }
  });

  /** Waits until the channels left by the tests before have lingered out: node 2 listens on no topic. */
  const noTopics = () => until(async () => expect(await topics(port(2))).toBe(0));

  it('drops a channel after the last local subscriber leaves, once the linger is over', async () => {
    await noTopics();
    const listener = await socket(port(2));
    await listener.subscribe('short-lived');
    expect(await topics(port(2))).toBe(1);
    listener.send({ event: 'pusher:unsubscribe', data: { channel: 'short-lived' } });
    await until(async () => expect(await topics(port(2))).toBe(0));
    const quiet = await received(port(2));
    await sdk(port(0)).trigger('short-lived', 'late', {});
    // A publish to a channel node 2 left is not sent to it: checked against a channel it still holds.
    await listener.subscribe('still-here');
    await sdk(port(0)).trigger('still-here', 'ping', {});
    await listener.waitFor((frame) => frame.event === 'ping');
    expect(await received(port(2))).toBe(quiet + 1);
    listener.ws.close();
  });

  it('sends a termination only to the nodes holding the user', async () => {
    await noTopics();
    const target = await socket(port(2));
    const userData = JSON.stringify({ id: 'mallory' });
    target.send({
      event: 'pusher:signin',
      data: { auth: signUserAuth(APP, target.socketId, userData), user_data: userData },
    });
    await target.waitFor((frame) => frame.event === 'pusher:signin_success');
    const terminations = 'herald_cluster_messages_total{direction="in",type="terminate"}';
    // The node answers signin_success once Redis acknowledged its subscription to the user's topic.
    expect(await topics(port(2))).toBe(1);
    await sdk(port(0)).terminateUserConnections('mallory');
    expect(await target.closed).toBe(4009);
    expect(await metric(port(2), terminations)).toBe(1);
    expect(await metric(port(1), terminations)).toBe(0);
  });

  it('terminates a user present in a presence channel on another node without signing in', async () => {
    await noTopics();
    const target = await socket(port(2));
    // No pusher:signin: the socket is the user only through its presence membership, which a terminate also ends.
    await target.subscribe('presence-lobby', JSON.stringify({ user_id: 'trudy' }));
    await sdk(port(0)).terminateUserConnections('trudy');
    expect(await target.closed).toBe(4009);
  });

  it('terminates a user from another node the moment their sign-in succeeds', async () => {
    for (let round = 0; round < 5; round++) {
      const target = await socket(port(2));
      const userData = JSON.stringify({ id: `quick-${round}-${randomBytes(3).toString('hex')}` });
      target.send({
        event: 'pusher:signin',
        data: { auth: signUserAuth(APP, target.socketId, userData), user_data: userData },
      });
      await target.waitFor((frame) => frame.event === 'pusher:signin_success');
      await sdk(port(0)).terminateUserConnections(JSON.parse(userData).id);
      expect(await target.closed).toBe(4009);
    }
  });
});
