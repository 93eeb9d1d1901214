import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { sleep, startRedis, until } from '@herald/test-kit';
import {
  createWebhookDispatcher,
  type WebhookApp,
  type WebhookDispatcher,
  type WebhookEvent,
  type WebhookQueue,
  webhookEvent,
} from '@herald/webhooks';
import {
  type ReceivedRequest,
  startWebhookReceiver,
  type WebhookReceiver,
  webhookQueueContract,
} from '@herald/webhooks/testing';
import Pusher from 'pusher';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedisWebhookQueue, type RedisWebhookQueue } from '../src/webhook-queue.js';
import { useRedisLayouts } from './redis-layouts.js';

// The Redis stream queue against the port's contract (one Redis, and a Redis Cluster), then two dispatchers on
// one queue: sharing work in the normal case, and one taking over the jobs a killed node held.

const redis = useRedisLayouts();

const opened: RedisWebhookQueue[] = [];
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await Promise.all(opened.splice(0).map((queue) => queue.close()));
});

const prefix = () => `test-${randomBytes(4).toString('hex')}:`;

const { servers } = redis;

describe.each(servers)('createRedisWebhookQueue on $name', ({ server }) => {
  it('fits the WebhookQueue port of @herald/webhooks', async () => {
    const queue: WebhookQueue = createRedisWebhookQueue({ ...server(), keyPrefix: prefix() });
    opened.push(queue as RedisWebhookQueue);
    expect(await queue.depth()).toBe(0);
  });

  for (const contractCase of webhookQueueContract()) {
    it(
      contractCase.name,
      () =>
        contractCase.run(async ({ leaseMs }) => {
          const queue = createRedisWebhookQueue({ ...server(), keyPrefix: prefix(), leaseMs });
          opened.push(queue);
          await queue.ready();
          return queue;
        }),
      60_000,
    );
  }
});

const APP = { key: 'app-key', secret: 'app-secret' };
const pusher = new Pusher({ appId: 'app-1', key: APP.key, secret: APP.secret, host: '127.0.0.1' });

/** The events of every request answered 2xx, each first checked with the pusher SDK. */
function accepted(requests: readonly ReceivedRequest[]): WebhookEvent[] {
  return requests
    .filter((request) => request.status === 200)
    .flatMap((request) => {
      const webhook = pusher.webhook({ headers: request.headers, rawBody: request.rawBody });
      if (!webhook.isValid()) throw new Error(`the pusher SDK refused ${request.rawBody}`);
      return webhook.getEvents() as WebhookEvent[];
    });
}

const eventsFor = (count: number) =>
  Array.from({ length: count }, (_, i) => [
    webhookEvent.channelOccupied(`room-${i}`),
    webhookEvent.channelVacated(`room-${i}`),
  ]).flat();

async function receiver(): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver();
  cleanups.push(() => started.close());
  return started;
}

function appsWith(receiverUrl: string): Record<string, WebhookApp> {
  const types = ['channel_occupied', 'channel_vacated'] as const;
  return {
    'app-1': {
      ...APP,
      webhooks: [
        { url: `${receiverUrl}?target=a`, event_types: [...types] },
        { url: `${receiverUrl}?target=b`, event_types: [...types] },
      ],
    },
  };
}

function dispatcherOn(
  keyPrefix: string,
  apps: Record<string, WebhookApp>,
  leaseMs: number,
): WebhookDispatcher {
  const queue = createRedisWebhookQueue({ url: redis.url(), keyPrefix, leaseMs });
  opened.push(queue);
  const dispatcher = createWebhookDispatcher({
    apps: (appId) => apps[appId],
    queue,
    batching: { enabled: false },
    requestTimeoutMs: leaseMs - 500,
    pollMs: 20,
    retry: { baseMs: 10, maxMs: 100 },
  });
  cleanups.push(() => dispatcher.close({ drainMs: 0 }));
  return dispatcher;
}

const byTarget = (requests: readonly ReceivedRequest[], target: string) =>
  requests.filter((request) => request.path.endsWith(`target=${target}`));

describe('dispatchers sharing a Redis stream queue', () => {
  it('deliver each event exactly once, in order per target, when two nodes work the same queue', async () => {
    const hook = await receiver();
    const keyPrefix = prefix();
    const apps = appsWith(hook.url);
    const first = dispatcherOn(keyPrefix, apps, 5000);
    dispatcherOn(keyPrefix, apps, 5000);
    const emitted = eventsFor(40);
    for (const event of emitted) first.emit('app-1', event);
    await hook.waitFor((requests) => accepted(requests).length >= emitted.length * 2, 60_000);
    // A lane hands out its next job only once the one before is acked: a marker queued last reaches each target
    // after any second delivery of an earlier job.
    const marker = webhookEvent.channelOccupied('fence-marker');
    first.emit('app-1', marker);
    const markerAt = (target: string) =>
      accepted(byTarget(hook.requests, target)).some((event) => event.channel === marker.channel);
    await hook.waitFor(() => markerAt('a') && markerAt('b'), 60_000);
    for (const target of ['a', 'b']) {
      const events = accepted(byTarget(hook.requests, target)).filter(
        (event) => event.channel !== marker.channel,
      );
      expect(events).toEqual(emitted);
    }
  }, 90_000);

  it('hand the jobs of a killed node to another after the lease: each event delivered exactly once', async () => {
    const hook = await receiver();
    hook.answer = () => 'hang'; // The doomed node's requests are never answered.
    const keyPrefix = prefix();
    const leaseMs = 2000;
    const count = 10;
    const apps = appsWith(hook.url);
    let child: ChildProcess | undefined = spawn(
      process.execPath,
      [fileURLToPath(new URL('./fixtures/webhook-node.mjs', import.meta.url))],
      {
        env: {
          ...process.env,
          REDIS_URL: redis.url(),
          KEY_PREFIX: keyPrefix,
          RECEIVER_URL: hook.url,
          LEASE_MS: String(leaseMs),
          EVENTS: String(count),
          APPS: JSON.stringify(apps),
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    cleanups.push(async () => {
      if (child?.exitCode === null) child.kill('SIGKILL');
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    await until(() => expect(output).toContain('queued'), { limitMs: 30_000 });
    // The node holds the head of both lanes: one request to each target, unanswered.
    await hook.waitFor(
      (requests) => byTarget(requests, 'a').length >= 1 && byTarget(requests, 'b').length >= 1,
    );
    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    child = undefined;
    const held = hook.requests.map((request) => `${request.path} ${request.rawBody}`);
    expect(held).toHaveLength(2);

    hook.answer = () => 200;
    const killedAt = Date.now();
    const emitted = eventsFor(count);
    dispatcherOn(keyPrefix, apps, leaseMs);
    await hook.waitFor((requests) => accepted(requests).length >= emitted.length * 2, 60_000);
    await sleep(leaseMs + 500); // A lapsed lease later, still no duplicate.
    for (const target of ['a', 'b']) expect(accepted(byTarget(hook.requests, target))).toEqual(emitted);
    // The survivor re-sent exactly what the dead node held, once its lease had lapsed.
    const answered = hook.requests.filter((request) => request.status === 200);
    for (const sent of held) {
      expect(answered.filter((request) => `${request.path} ${request.rawBody}` === sent)).toHaveLength(1);
    }
    expect(answered[0]!.receivedAt - killedAt).toBeLessThan(leaseMs + 10_000);
  }, 120_000);

  it('keep new events while Redis is away and deliver them, in order, once it is back', async () => {
    const own = await startRedis();
    cleanups.push(() => own.stop());
    const hook = await receiver();
    const queue = createRedisWebhookQueue({ url: own.url, keyPrefix: prefix(), leaseMs: 5000, timeout: 1 });
    opened.push(queue);
    await queue.ready();
    const apps = appsWith(hook.url);
    const dispatcher = createWebhookDispatcher({
      apps: (appId) => apps[appId],
      queue,
      batching: { enabled: false },
      requestTimeoutMs: 2000,
      pollMs: 20,
    });
    cleanups.push(() => dispatcher.close({ drainMs: 0 }));
    const emitted = eventsFor(10);
    for (const event of emitted.slice(0, 4)) dispatcher.emit('app-1', event);
    await hook.waitFor((requests) => accepted(requests).length >= 8);
    await own.stop();
    for (const event of emitted.slice(4)) dispatcher.emit('app-1', event);
    await sleep(500);
    await own.restart(); // Empty: only what the dispatcher still holds can reach the receiver.
    await hook.waitFor((requests) => accepted(requests).length >= emitted.length * 2, 60_000);
    for (const target of ['a', 'b']) expect(accepted(byTarget(hook.requests, target))).toEqual(emitted);
  }, 120_000);
});
