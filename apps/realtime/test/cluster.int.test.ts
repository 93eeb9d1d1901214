import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RedisProcess, sleep, startRedis, startRedisCluster, until } from '@herald/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { triggerMarker } from './fence.js';
import { PusherClient } from './pusher-client.js';
import { pusherSdk } from './pusher-sdk.js';
import { socket } from './raw-socket.js';
import { type RunningBin, runBin, startBin } from './run-bin.js';

const APP = { id: 'shop', key: 'shop-key', secret: 'shop-secret' };

type Scaling = { server?: { url: string }; cluster_mode?: boolean; nodes?: string[] };

/** Writes a config for one node and returns its directory. */
function nodeConfig(prefix: string, nodeId: string, scaling: Scaling, maxConnections = 1000): string {
  const cwd = mkdtempSync(join(tmpdir(), `herald-${nodeId}-`));
  writeFileSync(
    join(cwd, 'realtime.config.json'),
    JSON.stringify({
      applications: [{ ...APP, max_connections: maxConnections }],
      scaling: { enabled: true, prefix, node_id: nodeId, heartbeat_ms: 200, dead_after_ms: 1000, ...scaling },
    }),
  );
  return cwd;
}

async function startNodes(
  scaling: Scaling,
  count = 3,
  maxConnections = 1000,
): Promise<{ nodes: RunningBin[]; prefix: string }> {
  const prefix = `t${randomBytes(4).toString('hex')}:`;
  const nodes: RunningBin[] = [];
  for (let i = 0; i < count; i++)
    nodes.push(await startBin([], { cwd: nodeConfig(prefix, `n${i}`, scaling, maxConnections) }));
  return { nodes, prefix };
}

const sdk = (port: number) => pusherSdk(APP, port);

const count = (frames: Array<{ event: string }>, event: string) =>
  frames.filter((frame) => frame.event === event).length;

describe('three Herald nodes on one Redis', () => {
  let redis: RedisProcess;
  let nodes: RunningBin[];
  let prefix: string;

  beforeAll(async () => {
    redis = await startRedis();
    ({ nodes, prefix } = await startNodes({ server: { url: `redis://127.0.0.1:${redis.port}` } }));
  });
  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    await redis.stop();
  });

  const port = (i: number) => (nodes[i] as RunningBin).port;

  it('delivers a trigger exactly once to clients on every node, honouring socket_id on another node', async () => {
    const clients = await Promise.all([socket(port(0)), socket(port(1)), socket(port(2))]);
    for (const client of clients) await client.subscribe('orders');
    const [a, b, c] = clients as [
      Awaited<ReturnType<typeof socket>>,
      Awaited<ReturnType<typeof socket>>,
      Awaited<ReturnType<typeof socket>>,
    ];
    await sdk(port(0)).trigger('orders', 'created', { id: 1 }, { socket_id: b.socketId });
    await a.waitFor((frame) => frame.event === 'created');
    await c.waitFor((frame) => frame.event === 'created');
    await triggerMarker(sdk(port(0)), 'orders', [a, b, c]);
    expect([count(a.frames, 'created'), count(b.frames, 'created'), count(c.frames, 'created')]).toEqual([
      1, 0, 1,
    ]);
    for (const client of clients) client.ws.close();
  });

  it('keeps presence identical from every node, with one member_added for a user on two nodes', async () => {
    const watcher = await socket(port(0));
    await watcher.subscribe('presence-team', JSON.stringify({ user_id: 'w' }));
    const tab1 = await socket(port(1));
    const tab2 = await socket(port(2));
    await tab1.subscribe('presence-team', JSON.stringify({ user_id: 'ada', user_info: { name: 'Ada' } }));
    await tab2.subscribe('presence-team', JSON.stringify({ user_id: 'ada', user_info: { name: 'Ada' } }));
    await watcher.waitFor((frame) => frame.event === 'pusher_internal:member_added');
    // A second member_added would come from the node of the second tab, ahead of a marker sent through it.
    await triggerMarker(sdk(port(2)), 'presence-team', [watcher]);
    expect(count(watcher.frames, 'pusher_internal:member_added')).toBe(1);
    for (let i = 0; i < 3; i++) {
      const users = (await (await sdk(port(i)).get({ path: '/channels/presence-team/users' })).json()) as {
        users: Array<{ id: string }>;
      };
      expect(users.users.map((user) => user.id).sort()).toEqual(['ada', 'w']);
      const info = await (
        await sdk(port(i)).get({
          path: '/channels/presence-team',
          params: { info: 'user_count,subscription_count' },
        })
      ).json();
      expect(info).toMatchObject({ occupied: true, user_count: 2, subscription_count: 3 });
    }
    tab1.ws.close();
    // Node 1 has handled the close once the cluster counts one socket less; a member_removed it decided on would
    // come ahead of a marker sent through it.
    await until(async () => {
      const info = await (
        await sdk(port(1)).get({ path: '/channels/presence-team', params: { info: 'subscription_count' } })
      ).json();
      return (info as { subscription_count?: number }).subscription_count === 2;
    }, 'node 1 to handle the close');
    await triggerMarker(sdk(port(1)), 'presence-team', [watcher]);
    expect(count(watcher.frames, 'pusher_internal:member_removed')).toBe(0);
    tab2.ws.close();
    await watcher.waitFor((frame) => frame.event === 'pusher_internal:member_removed');
    watcher.ws.close();
  });

  it('terminates a user signed in on another node', async () => {
    const target = await socket(port(2));
    const userData = JSON.stringify({ id: 'mallory' });
    const { signUserAuth } = await import('@herald/protocol-core');
    target.send({
      event: 'pusher:signin',
      data: { auth: signUserAuth(APP, target.socketId, userData), user_data: userData },
    });
    await target.waitFor((frame) => frame.event === 'pusher:signin_success');
    await sdk(port(0)).terminateUserConnections('mallory');
    expect(await target.closed).toBe(4009);
  });

  it('serves a cache channel’s last event from another node', async () => {
    await sdk(port(0)).trigger('cache-rate', 'rate', { eur: 1.1 });
    const late = await socket(port(2));
    late.send({ event: 'pusher:subscribe', data: { channel: 'cache-rate' } });
    const replayed = await late.waitFor((frame) => frame.event === 'rate');
    expect(replayed.data).toEqual({ eur: 1.1 });
    late.ws.close();
  });

  it('sends member_removed once to the survivors when a node is killed with SIGKILL', async () => {
    const extra = await startBin([], {
      cwd: nodeConfig(prefix, 'doomed', {
        server: { url: `redis://127.0.0.1:${redis.port}` },
      }),
    });
    const watcher = await socket(port(0));
    const other = await socket(port(1));
    await watcher.subscribe('presence-crash', JSON.stringify({ user_id: 'w' }));
    await other.subscribe('presence-crash', JSON.stringify({ user_id: 'o' }));
    const ghost = await socket(extra.port);
    await ghost.subscribe('presence-crash', JSON.stringify({ user_id: 'ghost' }));
    await watcher.waitFor(
      (frame) =>
        frame.event === 'pusher_internal:member_added' &&
        (frame.data as { user_id: string }).user_id === 'ghost',
    );
    extra.child.kill('SIGKILL');
    const removedAt = Date.now();
    await watcher.waitFor(
      (frame) =>
        frame.event === 'pusher_internal:member_removed' &&
        (frame.data as { user_id: string }).user_id === 'ghost',
      5000,
    );
    await other.waitFor((frame) => frame.event === 'pusher_internal:member_removed', 5000);
    expect(Date.now() - removedAt).toBeLessThan(4000);
    // A second reaper would act on its own heartbeat timer, not in answer to anything a marker could follow: only
    // time (a few heartbeats) shows that none does.
    await sleep(600);
    expect(count(watcher.frames, 'pusher_internal:member_removed')).toBe(1);
    expect(count(other.frames, 'pusher_internal:member_removed')).toBe(1);
    const users = (await (await sdk(port(2)).get({ path: '/channels/presence-crash/users' })).json()) as {
      users: Array<{ id: string }>;
    };
    expect(users.users.map((user) => user.id).sort()).toEqual(['o', 'w']);
    watcher.ws.close();
    other.ws.close();
  });

  it('keeps delivering locally while Redis is down, and across nodes again once it is back', async () => {
    const local = await socket(port(0));
    const remote = await socket(port(1));
    await local.subscribe('outage');
    await remote.subscribe('outage');
    await redis.stop();
    const response = await sdk(port(0)).trigger('outage', 'during', { n: 1 });
    expect(response.status).toBe(200);
    await local.waitFor((frame) => frame.event === 'during');
    await redis.restart();
    // Wait for the nodes to reconnect and resubscribe, then publish again.
    let delivered = false;
    for (let attempt = 0; attempt < 40 && !delivered; attempt++) {
      await sdk(port(0)).trigger('outage', 'after', { attempt });
      await sleep(250);
      delivered = remote.frames.some((frame) => frame.event === 'after');
    }
    expect(delivered).toBe(true);
    for (const node of nodes) expect(node.child.exitCode).toBeNull();
    // The metrics say what happened: failed Redis operations during the outage, then a resync.
    const metrics = await (await fetch(`http://127.0.0.1:${port(0)}/metrics`)).text();
    expect(metrics).toMatch(/herald_cluster_errors_total\{operation="[^"]+"\} [1-9]/);
    expect(metrics).toMatch(/herald_cluster_events_total\{event="resynced"\} [1-9]/);
    expect(metrics).toMatch(/herald_cluster_messages_total\{direction="out",type="deliver"\} [1-9]/);
    local.ws.close();
    remote.ws.close();
  });

  it('asks every node to restart through Redis: sockets close with 4200 and pusher-js reconnects', async () => {
    const clients = [0, 1, 2].map(
      (i) =>
        new PusherClient(APP.key, {
          cluster: 'mt1',
          wsHost: '127.0.0.1',
          wsPort: port(i),
          forceTLS: false,
          enabledTransports: ['ws'],
          disableStats: true,
        }),
    );
    await Promise.all(
      clients.map((client) => new Promise((resolve) => client.connection.bind('connected', resolve))),
    );
    const before = clients.map((client) => client.connection.socket_id);
    const codes = clients.map(
      (client) =>
        new Promise<number | undefined>((resolve) =>
          client.connection.bind('error', (error: { data?: { code?: number } }) => resolve(error.data?.code)),
        ),
    );
    const dir = mkdtempSync(join(tmpdir(), 'herald-restart-'));
    writeFileSync(
      join(dir, 'realtime.config.json'),
      JSON.stringify({
        applications: [APP],
        scaling: { enabled: true, prefix, server: { url: `redis://127.0.0.1:${redis.port}` } },
      }),
    );
    const result = await runBin(['restart_server'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(await Promise.all(codes)).toEqual([4200, 4200, 4200]);
    await Promise.all(
      clients.map(
        (client, i) =>
          new Promise<void>((resolve) => {
            const check = () => {
              if (client.connection.state === 'connected' && client.connection.socket_id !== before[i])
                resolve();
              else setTimeout(check, 50);
            };
            check();
          }),
      ),
    );
    for (const client of clients) client.disconnect();
  });

  it('shares REST rate limits between nodes with the redis driver', async () => {
    const shared = `t${randomBytes(4).toString('hex')}:`;
    const limited: RunningBin[] = [];
    try {
      for (const id of ['r0', 'r1']) {
        const cwd = mkdtempSync(join(tmpdir(), `herald-${id}-`));
        writeFileSync(
          join(cwd, 'realtime.config.json'),
          JSON.stringify({
            applications: [{ ...APP, max_backend_events_per_second: 3 }],
            scaling: {
              enabled: true,
              prefix: shared,
              node_id: id,
              server: { url: `redis://127.0.0.1:${redis.port}` },
            },
            rate_limiter: {
              enabled: true,
              driver: 'redis',
              redis: { url: `redis://127.0.0.1:${redis.port}` },
            },
          }),
        );
        limited.push(await startBin([], { cwd }));
      }
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const response = await fetch(`http://127.0.0.1:${limited[i % 2]?.port}/apps/shop/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${APP.secret}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'e', channel: 'c', data: '{}' }),
        });
        statuses.push(response.status);
        if (response.status === 429) expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      }
      // Three events per second for the app across both nodes: the fourth, on either node, is refused.
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      await Promise.all(limited.map((node) => node.stop()));
    }
  });

  it('enforces max_connections across the cluster', async () => {
    const { nodes: limited } = await startNodes({ server: { url: `redis://127.0.0.1:${redis.port}` } }, 3, 2);
    try {
      const first = await socket(limited[0]?.port ?? 0);
      const second = await socket(limited[1]?.port ?? 0);
      const third = new WebSocket(`ws://127.0.0.1:${limited[2]?.port}/app/${APP.key}?protocol=7`);
      const code = await new Promise<number>((resolve) =>
        third.on('close', (closeCode) => resolve(closeCode)),
      );
      expect(code).toBe(4004);
      first.ws.close();
      second.ws.close();
    } finally {
      await Promise.all(limited.map((node) => node.stop()));
    }
  });
});

describe('three Herald nodes on a three-master Redis Cluster', () => {
  let cluster: Awaited<ReturnType<typeof startRedisCluster>>;
  let nodes: RunningBin[];

  beforeAll(async () => {
    cluster = await startRedisCluster();
    ({ nodes } = await startNodes({ cluster_mode: true, nodes: cluster.ports.map((p) => `127.0.0.1:${p}`) }));
  }, 60_000);
  afterAll(async () => {
    await Promise.all((nodes ?? []).map((node) => node.stop()));
    await cluster?.stop();
  });

  const port = (i: number) => (nodes[i] as RunningBin).port;

  it('broadcasts exactly once across nodes', async () => {
    const clients = await Promise.all([socket(port(0)), socket(port(1)), socket(port(2))]);
    for (const client of clients) await client.subscribe('news');
    await sdk(port(1)).trigger('news', 'posted', { n: 1 }, { socket_id: clients[0]?.socketId });
    await clients[1]?.waitFor((frame) => frame.event === 'posted');
    await clients[2]?.waitFor((frame) => frame.event === 'posted');
    await triggerMarker(sdk(port(1)), 'news', clients);
    expect(clients.map((client) => count(client.frames, 'posted'))).toEqual([0, 1, 1]);
    for (const client of clients) client.ws.close();
  });

  it('keeps one presence roster across nodes', async () => {
    const watcher = await socket(port(0));
    await watcher.subscribe('presence-c', JSON.stringify({ user_id: 'w' }));
    const a = await socket(port(1));
    const b = await socket(port(2));
    await a.subscribe('presence-c', JSON.stringify({ user_id: 'u' }));
    await b.subscribe('presence-c', JSON.stringify({ user_id: 'u' }));
    await watcher.waitFor((frame) => frame.event === 'pusher_internal:member_added');
    for (let i = 0; i < 3; i++) {
      const users = (await (await sdk(port(i)).get({ path: '/channels/presence-c/users' })).json()) as {
        users: Array<{ id: string }>;
      };
      expect(users.users.map((user) => user.id).sort()).toEqual(['u', 'w']);
    }
    a.ws.close();
    b.ws.close();
    await watcher.waitFor((frame) => frame.event === 'pusher_internal:member_removed');
    // Either tab's node could send a second member_added or member_removed: a marker through each follows it.
    await triggerMarker(sdk(port(1)), 'presence-c', [watcher]);
    await triggerMarker(sdk(port(2)), 'presence-c', [watcher]);
    expect(count(watcher.frames, 'pusher_internal:member_added')).toBe(1);
    expect(count(watcher.frames, 'pusher_internal:member_removed')).toBe(1);
    watcher.ws.close();
  });
});
