import { randomBytes } from 'node:crypto';
import { type RedisProcess, sleep, startRedis } from '@herald/test-kit';
import { startWebhookReceiver, type WebhookReceiver } from '@herald/webhooks/testing';
import Pusher from 'pusher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterNodeDir } from './cluster-node-dir.js';
import { socket } from './raw-socket.js';
import { type RunningBin, startBin } from './run-bin.js';

const APP = { id: 'shop', key: 'shop-key', secret: 'shop-secret' };
type Event = { name: string; channel: string; user_id?: string };

function nodeConfig(
  prefix: string,
  nodeId: string,
  redisPort: number,
  hook: string,
  webhooks: Record<string, unknown> = { batching: { enabled: false } },
): string {
  const event_types = ['channel_occupied', 'channel_vacated', 'member_added', 'member_removed'];
  const config = { applications: [{ ...APP, webhooks: [{ url: hook, event_types }] }], webhooks };
  return clusterNodeDir({ prefix, nodeId, redisPort, config });
}

describe('webhooks across three nodes on one Redis', () => {
  let redis: RedisProcess;
  let receiver: WebhookReceiver;
  let nodes: RunningBin[];
  let verifier: Pusher;

  beforeAll(async () => {
    redis = await startRedis();
    receiver = await startWebhookReceiver();
    const prefix = `w${randomBytes(4).toString('hex')}:`;
    nodes = [];
    for (const id of ['n0', 'n1', 'n2']) {
      nodes.push(await startBin([], { cwd: nodeConfig(prefix, id, redis.port, receiver.url) }));
    }
    verifier = new Pusher({ appId: APP.id, key: APP.key, secret: APP.secret, host: '127.0.0.1', port: '1' });
  });

  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    await receiver?.close();
    await redis?.stop();
  });

  /** Every event received so far, each request verified with the pusher SDK. */
  const events = (): Event[] =>
    receiver.requests.flatMap((request) => {
      const webhook = verifier.webhook({ headers: request.headers, rawBody: request.rawBody });
      expect(webhook.isValid()).toBe(true);
      return webhook.getEvents() as Event[];
    });
  const of = (channel: string) => events().filter((event) => event.channel === channel);
  let fences = 0;
  /**
   * Subscribes `client` to a fresh channel and waits for that channel's occupied webhook. Its node decides
   * occupancy in the order its socket's frames came, and its webhooks keep that order: any webhook for what the
   * socket did before has been delivered by then.
   */
  const fenceWebhooks = async (client: Awaited<ReturnType<typeof socket>>) => {
    const channel = `fence-${++fences}`;
    await client.subscribe(channel);
    await receiver.waitFor(() => of(channel).length >= 1);
  };

  it('reports occupied for the first subscriber anywhere and vacated after the last, once each', async () => {
    const [n0, n1] = nodes as [RunningBin, RunningBin];
    const first = await socket(n0.port, '', APP);
    const second = await socket(n1.port, '', APP);
    await first.subscribe('orders');
    await second.subscribe('orders');
    await receiver.waitFor(() => of('orders').length >= 1);
    first.send({ event: 'pusher:unsubscribe', data: { channel: 'orders' } });
    await fenceWebhooks(first);
    expect(of('orders')).toEqual([{ name: 'channel_occupied', channel: 'orders' }]);
    second.send({ event: 'pusher:unsubscribe', data: { channel: 'orders' } });
    await receiver.waitFor(() => of('orders').length >= 2);
    await fenceWebhooks(first);
    await fenceWebhooks(second);
    expect(of('orders')).toEqual([
      { name: 'channel_occupied', channel: 'orders' },
      { name: 'channel_vacated', channel: 'orders' },
    ]);
    first.ws.close();
    second.ws.close();
  });

  it('adds a presence member once for sockets on two nodes, and a SIGKILLed node removes it and vacates once', async () => {
    const [n0, , n2] = nodes as [RunningBin, RunningBin, RunningBin];
    const member = JSON.stringify({ user_id: 'ada' });
    const onFirst = await socket(n0.port, '', APP);
    const onLast = await socket(n2.port, '', APP);
    await onFirst.subscribe('presence-lab', member);
    await onLast.subscribe('presence-lab', member);
    await receiver.waitFor(() => of('presence-lab').length >= 2);
    onFirst.send({ event: 'pusher:unsubscribe', data: { channel: 'presence-lab' } });
    await fenceWebhooks(onFirst);
    expect(of('presence-lab')).toEqual([
      { name: 'channel_occupied', channel: 'presence-lab' },
      { name: 'member_added', channel: 'presence-lab', user_id: 'ada' },
    ]);

    // The node holding the last socket dies without a word: a survivor reaps it and reports both changes once.
    (nodes[2] as RunningBin).child.kill('SIGKILL');
    await receiver.waitFor(() => of('presence-lab').length >= 4, 30_000);
    // A second reaper would act on its own heartbeat timer, which no marker follows: only time shows none does.
    await sleep(1500);
    expect(of('presence-lab')).toEqual([
      { name: 'channel_occupied', channel: 'presence-lab' },
      { name: 'member_added', channel: 'presence-lab', user_id: 'ada' },
      { name: 'member_removed', channel: 'presence-lab', user_id: 'ada' },
      { name: 'channel_vacated', channel: 'presence-lab' },
    ]);
    onFirst.ws.close();
  });
});

describe('webhooks queued in Redis when the node that queued them dies', () => {
  it('are delivered once by another node after the lease, in order', async () => {
    const redis = await startRedis();
    const receiver = await startWebhookReceiver();
    receiver.answer = () => 503; // The receiver is down at first: the event waits in the queue.
    const prefix = `k${randomBytes(4).toString('hex')}:`;
    const settings = {
      batching: { enabled: false },
      retry: { base_ms: 100, max_ms: 300 },
      request_timeout_ms: 500,
      queue_lease_ms: 1500,
    };
    const config = (id: string) => nodeConfig(prefix, id, redis.port, receiver.url, settings);
    const doomed = await startBin([], { cwd: config('doomed') });
    const survivor = await startBin([], { cwd: config('survivor') });
    try {
      const client = await socket(doomed.port, '', APP);
      await client.subscribe('ledger');
      await receiver.waitFor((requests) => requests.length >= 1);
      doomed.child.kill('SIGKILL');
      await doomed.exited;
      receiver.answer = () => 200;
      const delivered = () =>
        receiver.requests
          .filter((request) => request.status === 200)
          .flatMap((request) => (JSON.parse(request.rawBody) as { events: Event[] }).events)
          .filter((event) => event.channel === 'ledger');
      await receiver.waitFor(() => delivered().length >= 2, 30_000);
      // A second delivery would follow a lapsed lease (1.5 s), a timer no marker follows: time has to pass.
      await sleep(2000);
      expect(delivered()).toEqual([
        { name: 'channel_occupied', channel: 'ledger' },
        { name: 'channel_vacated', channel: 'ledger' },
      ]);
    } finally {
      await survivor.stop();
      await receiver.close();
      await redis.stop();
    }
  });
});
