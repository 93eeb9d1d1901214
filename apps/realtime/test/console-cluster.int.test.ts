import { type RedisProcess, startRedis, until } from '@herald/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleSession, signIn, startConsoleNodes } from './console-support.js';
import { type PusherClient, pusherJsClient } from './pusher-client.js';
import { pusherSdk } from './pusher-sdk.js';
import type { RunningBin } from './run-bin.js';

// The console of a cluster over HTTP: two nodes on a redis-server this file starts, the console read on node A
// only. Usage, messages per second and connections add up what both nodes counted; the channel inspector lists a
// member that joined on node B with its user_info. No client ever connects to A unless a test says so, so what A
// reports of B's traffic can only have come through Redis.

const APP = { id: 'shop', key: 'shop-key', secret: 'shop-secret' };

interface Series {
  t: number[];
  in: number[];
  out: number[];
  connections: number[];
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

describe('the console of two nodes on Redis', () => {
  let redis: RedisProcess;
  let nodes: RunningBin[] = [];
  const clients: PusherClient[] = [];
  let consoleA: string;
  let consoleB: string;
  let sessionA: ConsoleSession;
  let sessionB: ConsoleSession;

  beforeAll(async () => {
    redis = await startRedis();
    nodes = await startConsoleNodes(redis, APP);
    consoleA = `http://127.0.0.1:${(nodes[0] as RunningBin).port}/console`;
    consoleB = `http://127.0.0.1:${(nodes[1] as RunningBin).port}/console`;
    [sessionA, sessionB] = await Promise.all([signIn(consoleA), signIn(consoleB)]);
  });

  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await Promise.all(nodes.map((node) => node.stop()));
    await redis?.stop();
  });

  const portB = () => (nodes[1] as RunningBin).port;
  const read = async <T>(path: string): Promise<T> => {
    const answer = await fetch(`${consoleA}/api${path}`, { headers: { cookie: sessionA.cookie } });
    expect(answer.status, path).toBe(200);
    return (await answer.json()) as T;
  };
  /**
   * Node A's usage of the app. Each node samples its counters every 5 s; a console asking for usage makes its own
   * node sample at once, so node B is asked first (as a console open on B would), and A's answer is read from Redis
   * with B's sample in it, without waiting for B's timer.
   */
  const usage = async () => {
    await fetch(`${consoleB}/api/apps/shop/usage`, { headers: { cookie: sessionB.cookie } });
    return read<{ hour: Series; day: Series }>('/apps/shop/usage');
  };
  const overview = async () =>
    (
      await read<{ apps: Array<{ connections: number; messagesPerSecond: { in: number; out: number } }> }>(
        '/apps',
      )
    ).apps[0];

  it('counts in node A’s usage and messages per second the events published through node B', async () => {
    const sdk = pusherSdk(APP, portB());
    let sent = 0;
    const publish = async () => {
      await sdk.trigger('orders', 'placed', { n: sent });
      sent += 1;
    };
    for (let i = 0; i < 20; i++) await publish();
    // A rate covers a node's last sample window (a second at least): publishing on keeps every window of B's busy
    // until A shows one.
    await until(async () => {
      if (((await overview())?.messagesPerSecond.in ?? 0) > 0) return true;
      await publish();
      await usage();
      return false;
    }, 'node B’s publishes in node A’s messages per second');
    await until(async () => sum((await usage()).hour.in) >= sent, 'every publish in node A’s hour');
    // Every publish is one REST call on B, and nothing else comes in anywhere (A's own console calls are not the
    // app's API calls): A's hour and day count exactly what was sent.
    const counted = await usage();
    expect(sum(counted.hour.in)).toBe(sent);
    expect(sum(counted.day.in)).toBe(sent);
  });

  it('sums the connections open on both nodes', async () => {
    const portA = (nodes[0] as RunningBin).port;
    for (const port of [portA, portB(), portB()]) clients.push(pusherJsClient(port, APP.key));
    await until(
      () => clients.every((client) => client.connection.state === 'connected'),
      'three clients connected',
    );
    expect((await overview())?.connections).toBe(3);
    // The chart's current minute: each node's most connections in it, added up.
    await until(async () => (await usage()).hour.connections.at(-1) === 3, 'three connections in the chart');
  });

  it('lists a member that joined on node B with its user_info, and drops it once it leaves', async () => {
    const sdk = pusherSdk(APP, portB());
    const signer = {
      authorizeChannel: (socketId: string, channel: string) =>
        sdk.authorizeChannel(socketId, channel, { user_id: 'bob', user_info: { name: 'Bob' } }),
    };
    const member = pusherJsClient(portB(), APP.key, signer);
    clients.push(member);
    const channel = member.subscribe('presence-room');
    await until(() => channel.subscribed, 'bob subscribed on node B');
    const inspected = await read<{ members?: Array<{ id: string; info: unknown }> }>(
      '/apps/shop/channels/presence-room',
    );
    expect(inspected.members).toEqual([{ id: 'bob', info: { name: 'Bob' } }]);
    member.unsubscribe('presence-room');
    await until(async () => {
      const left = await read<{ members?: unknown[] }>('/apps/shop/channels/presence-room');
      return left.members?.length === 0;
    }, 'bob gone from node A’s inspector');
  });
});
