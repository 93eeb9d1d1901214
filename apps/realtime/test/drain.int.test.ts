import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server } from 'node:net';
import { type RedisProcess, startRedis, until } from '@herald/test-kit';
import Pusher from 'pusher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterNodeDir } from './cluster-node-dir.js';
import { PusherClient } from './pusher-client.js';
import { type RunningBin, startBin } from './run-bin.js';

const APP = { id: 'shop', key: 'shop-key', secret: 'shop-secret' };

async function statusOf(port: number, path: string): Promise<number> {
  try {
    return (await fetch(`http://127.0.0.1:${port}${path}`)).status;
  } catch {
    return 0;
  }
}

/**
 * A load balancer in a few lines, as a Kubernetes Service or an HAProxy health check behaves: each new connection
 * goes to the first backend whose `/ready` answers 200.
 */
function readinessBalancer(backends: readonly number[]): Promise<{ server: Server; port: number }> {
  const server = createServer((client) => {
    client.pause();
    void (async () => {
      for (const port of backends) {
        if ((await statusOf(port, '/ready')) !== 200) continue;
        const upstream = connect(port, '127.0.0.1', () => {
          client.pipe(upstream).pipe(client);
          client.resume();
        });
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
        return;
      }
      client.destroy();
    })();
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : 0 });
    }),
  );
}

function nodeConfig(prefix: string, nodeId: string, redisPort: number): string {
  const config = { servers: { herald: { shutdown_grace_period: 2 } }, applications: [APP] };
  return clusterNodeDir({ prefix, nodeId, redisPort, config });
}

const nodeNumberOf = (socketId: string) => socketId.split('.')[0];

describe('draining a node before it stops', () => {
  let redis: RedisProcess;
  let first: RunningBin;
  let second: RunningBin;
  let balancer: { server: Server; port: number };
  const clients: PusherClient[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    const prefix = `d${randomBytes(4).toString('hex')}:`;
    first = await startBin([], { cwd: nodeConfig(prefix, 'first', redis.port) });
    second = await startBin([], { cwd: nodeConfig(prefix, 'second', redis.port) });
    balancer = await readinessBalancer([first.port, second.port]);
  });

  afterAll(async () => {
    for (const client of clients) client.disconnect();
    balancer?.server.close();
    await Promise.all([first?.stop(), second?.stop()]);
    await redis?.stop();
  });

  it('turns /ready to 503 at once, hands its pusher-js clients to the other node in batches, then exits', async () => {
    for (let i = 0; i < 20; i++) {
      clients.push(
        new PusherClient(APP.key, {
          cluster: 'mt1',
          wsHost: '127.0.0.1',
          wsPort: balancer.port,
          forceTLS: false,
          enabledTransports: ['ws'],
          disableStats: true,
        }),
      );
    }
    const subscribed = clients.map(
      (client) =>
        new Promise<void>((resolve) =>
          client.subscribe('news').bind('pusher:subscription_succeeded', () => resolve()),
        ),
    );
    await Promise.all(subscribed);
    const before = clients.map((client) => client.connection.socket_id);
    expect(new Set(before.map(nodeNumberOf)).size).toBe(1);

    const dropped: number[] = [];
    for (const client of clients) {
      client.connection.bind('state_change', ({ current }: { current: string }) => {
        if (current !== 'connected') dropped.push(Date.now());
      });
    }
    expect(await statusOf(first.port, '/ready')).toBe(200);
    first.child.kill('SIGTERM');
    await until(async () => (await statusOf(first.port, '/ready')) === 503, '/ready to turn 503');
    // Liveness stays green while the node drains: it is not dead, only leaving.
    expect(await statusOf(first.port, '/up')).toBe(200);

    await until(
      () =>
        clients.every(
          (client, index) =>
            client.connection.state === 'connected' && client.connection.socket_id !== before[index],
        ),
      'every client to reconnect',
    );
    const after = clients.map((client) => client.connection.socket_id);
    expect(new Set(after.map(nodeNumberOf))).toEqual(new Set([nodeNumberOf(after[0] as string)]));
    expect(nodeNumberOf(after[0] as string)).not.toBe(nodeNumberOf(before[0] as string));
    // Closed in batches across the 2 s grace period, not all at once.
    expect(Math.max(...dropped) - Math.min(...dropped)).toBeGreaterThan(1000);
    expect(await first.exited).toBe(0);

    // Nothing lost on the node that took them over: a trigger through it reaches all twenty.
    await Promise.all(
      clients.map(
        (client) =>
          new Promise<void>((resolve) => {
            const channel = client.channel('news');
            if (channel.subscribed) resolve();
            else channel.bind('pusher:subscription_succeeded', () => resolve());
          }),
      ),
    );
    const received = clients.map(
      (client) => new Promise<unknown>((resolve) => client.channel('news').bind('flash', resolve)),
    );
    const sdk = new Pusher({
      ...{ appId: APP.id, key: APP.key, secret: APP.secret },
      host: '127.0.0.1',
      port: String(second.port),
      useTLS: false,
    });
    await sdk.trigger('news', 'flash', { n: 1 });
    expect(await Promise.all(received)).toEqual(clients.map(() => ({ n: 1 })));
  });
});
