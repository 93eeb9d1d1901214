import { fence, sleep, until } from '@herald/test-kit';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createMemoryWebhookQueue,
  createWebhookDispatcher,
  type WebhookApp,
  type WebhookDispatcher,
  type WebhookDispatcherOptions,
  type WebhookEvent,
  webhookEvent,
} from '../src/index.js';
import { startWebhookReceiver, type WebhookReceiver } from '../src/testing.js';
import { APP, APP_ID, acceptedEvents, appWith, recordingLogger, verify } from './support.js';

// A real HTTP receiver on loopback; every request is checked with the official `pusher` SDK's webhook helper.

const ALL_TYPES = [
  'channel_occupied',
  'channel_vacated',
  'member_added',
  'member_removed',
  'client_event',
  'cache_miss',
  'subscription_count',
] as const;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function receiver(): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver();
  cleanups.push(() => started.close());
  return started;
}

function dispatcher(
  apps: Record<string, WebhookApp>,
  options: Partial<WebhookDispatcherOptions> = {},
): WebhookDispatcher {
  const made = createWebhookDispatcher({
    apps: (appId) => apps[appId],
    pollMs: 20,
    retry: { baseMs: 10, maxMs: 50 },
    ...options,
  });
  cleanups.push(() => made.close({ drainMs: 0 }));
  return made;
}

const unbatched = { batching: { enabled: false } } as const;

describe('webhook delivery to a real receiver', () => {
  it("sends every event type with Pusher's exact payload, signed so that the pusher SDK accepts it", async () => {
    const hook = await receiver();
    const app = appWith([{ url: hook.url, event_types: [...ALL_TYPES] }]);
    const sender = dispatcher({ [APP_ID]: app }, unbatched);
    const before = Date.now();
    sender.emit(APP_ID, webhookEvent.channelOccupied('presence-room'));
    sender.emit(APP_ID, webhookEvent.memberAdded('presence-room', 'user-1'));
    sender.emit(
      APP_ID,
      webhookEvent.clientEvent({
        channel: 'presence-room',
        event: 'client-typing',
        data: { typing: true },
        socketId: '123.456',
        userId: 'user-1',
      }),
    );
    sender.emit(
      APP_ID,
      webhookEvent.clientEvent({
        channel: 'private-chat',
        event: 'client-msg',
        data: '{"text":"hi"}',
        socketId: '123.457',
      }),
    );
    sender.emit(APP_ID, webhookEvent.cacheMiss('cache-prices'));
    sender.emit(APP_ID, webhookEvent.subscriptionCount('orders', 3));
    sender.emit(APP_ID, webhookEvent.memberRemoved('presence-room', 'user-1'));
    sender.emit(APP_ID, webhookEvent.channelVacated('presence-room'));
    await hook.waitFor((requests) => requests.length >= 8);

    const expected = [
      { name: 'channel_occupied', channel: 'presence-room' },
      { name: 'member_added', channel: 'presence-room', user_id: 'user-1' },
      {
        name: 'client_event',
        channel: 'presence-room',
        event: 'client-typing',
        data: '{"typing":true}',
        socket_id: '123.456',
        user_id: 'user-1',
      },
      {
        name: 'client_event',
        channel: 'private-chat',
        event: 'client-msg',
        data: '{"text":"hi"}',
        socket_id: '123.457',
      },
      { name: 'cache_miss', channel: 'cache-prices' },
      { name: 'subscription_count', channel: 'orders', subscription_count: 3 },
      { name: 'member_removed', channel: 'presence-room', user_id: 'user-1' },
      { name: 'channel_vacated', channel: 'presence-room' },
    ];
    expect(hook.requests.map((request) => verify(request))).toEqual(
      expected.map((event) => ({ valid: true, events: [event] })),
    );
    for (const request of hook.requests) {
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/webhooks');
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['x-pusher-key']).toBe(APP.key);
      const body = JSON.parse(request.rawBody) as { time_ms: number; events: unknown[] };
      expect(Object.keys(body)).toEqual(['time_ms', 'events']);
      expect(body.time_ms).toBeGreaterThanOrEqual(before);
      expect(body.time_ms).toBeLessThanOrEqual(Date.now());
    }
    // A request signed with another secret is refused by the same SDK check.
    expect(verify(hook.requests[0]!, { key: APP.key, secret: 'another-secret' }).valid).toBe(false);
  });

  it('batches events close together into one request per URL, never mixing apps or URLs', async () => {
    const first = await receiver();
    const second = await receiver();
    const other = { key: 'other-key', secret: 'other-secret' };
    const apps = {
      [APP_ID]: appWith([
        { url: first.url, event_types: ['channel_occupied'] },
        { url: second.url, event_types: ['channel_occupied'] },
      ]),
      'app-2': { ...other, webhooks: [{ url: first.url, event_types: ['channel_occupied' as const] }] },
    };
    const sender = dispatcher(apps, { batching: { enabled: true, windowMs: 200 } });
    for (const channel of ['a', 'b', 'c']) sender.emit(APP_ID, webhookEvent.channelOccupied(channel));
    sender.emit('app-2', webhookEvent.channelOccupied('z'));
    await first.waitFor((requests) => requests.length >= 2);
    await second.waitFor((requests) => requests.length >= 1);

    const occupied = (channels: string[]) =>
      channels.map((channel) => ({ name: 'channel_occupied', channel }));
    const byKey = (key: string) =>
      first.requests.filter((request) => request.headers['x-pusher-key'] === key);
    expect(byKey(APP.key).map((request) => verify(request))).toEqual([
      { valid: true, events: occupied(['a', 'b', 'c']) },
    ]);
    expect(byKey(other.key).map((request) => verify(request, other))).toEqual([
      { valid: true, events: occupied(['z']) },
    ]);
    expect(second.requests.map((request) => verify(request))).toEqual([
      { valid: true, events: occupied(['a', 'b', 'c']) },
    ]);
  });

  it('sends one request per event when the app turns batching off', async () => {
    const hook = await receiver();
    const app = appWith([{ url: hook.url, event_types: ['cache_miss'] }], { batching: { enabled: false } });
    const sender = dispatcher({ [APP_ID]: app }, { batching: { enabled: true, windowMs: 200 } });
    for (const channel of ['cache-a', 'cache-b', 'cache-c'])
      sender.emit(APP_ID, webhookEvent.cacheMiss(channel));
    await hook.waitFor((requests) => requests.length >= 3);
    expect(hook.requests.map((request) => verify(request).events)).toEqual(
      ['cache-a', 'cache-b', 'cache-c'].map((channel) => [{ name: 'cache_miss', channel }]),
    );
  });

  it('filters by event type, channel prefix and channel suffix', async () => {
    const hook = await receiver();
    const app = appWith([
      {
        url: hook.url,
        event_types: ['channel_occupied'],
        filter: { channel_name_starts_with: 'private-', channel_name_ends_with: '-orders' },
      },
      { url: hook.url, event_types: ['member_added'], filter: { channel_name_ends_with: '-vip' } },
    ]);
    const sender = dispatcher({ [APP_ID]: app }, unbatched);
    sender.emit(APP_ID, webhookEvent.channelOccupied('private-eu-orders')); // both filters match
    sender.emit(APP_ID, webhookEvent.channelOccupied('public-orders')); // prefix fails
    sender.emit(APP_ID, webhookEvent.channelOccupied('private-eu-invoices')); // suffix fails
    sender.emit(APP_ID, webhookEvent.channelVacated('private-eu-orders')); // type not listed
    sender.emit(APP_ID, webhookEvent.memberAdded('presence-vip', 'u1')); // second entry
    sender.emit(APP_ID, webhookEvent.memberAdded('presence-all', 'u2')); // suffix fails
    sender.emit(APP_ID, webhookEvent.channelOccupied('private-us-orders'));
    await hook.waitFor((requests) => requests.length >= 3);
    await sender.close();
    expect(acceptedEvents(hook.requests)).toEqual([
      { name: 'channel_occupied', channel: 'private-eu-orders' },
      { name: 'member_added', channel: 'presence-vip', user_id: 'u1' },
      { name: 'channel_occupied', channel: 'private-us-orders' },
    ]);
  });

  it('sends an event once to a URL that several matching entries name, and separately per set of headers', async () => {
    const hook = await receiver();
    const app = appWith([
      { url: hook.url, event_types: ['member_added'] },
      {
        url: hook.url,
        event_types: ['member_added', 'member_removed'],
        filter: { channel_name_starts_with: 'presence-' },
      },
      { url: hook.url, event_types: ['member_added'], headers: { 'X-Copy': 'audit' } },
    ]);
    const sender = dispatcher({ [APP_ID]: app }, unbatched);
    sender.emit(APP_ID, webhookEvent.memberAdded('presence-room', 'u1'));
    await hook.waitFor((requests) => requests.length >= 2);
    await sender.close();
    const event = { name: 'member_added', channel: 'presence-room', user_id: 'u1' };
    expect(hook.requests.map((request) => [request.headers['x-copy'], verify(request)])).toEqual([
      [undefined, { valid: true, events: [event] }],
      ['audit', { valid: true, events: [event] }],
    ]);
  });

  it("adds a webhook's custom headers, never in place of the Pusher ones", async () => {
    const hook = await receiver();
    // Built by hand, past the config schema that would refuse the forged signature header.
    const app = appWith([
      {
        url: hook.url,
        event_types: ['channel_occupied'],
        headers: {
          Authorization: 'Bearer receiver-token',
          'X-Tenant': 'acme',
          'X-Pusher-Signature': 'forged',
        },
      },
    ]);
    const sender = dispatcher({ [APP_ID]: app }, unbatched);
    sender.emit(APP_ID, webhookEvent.channelOccupied('room'));
    await hook.waitFor((requests) => requests.length >= 1);
    const [request] = hook.requests;
    expect(request!.headers.authorization).toBe('Bearer receiver-token');
    expect(request!.headers['x-tenant']).toBe('acme');
    expect(verify(request!)).toEqual({
      valid: true,
      events: [{ name: 'channel_occupied', channel: 'room' }],
    });
  });
});

describe('webhook retries', () => {
  it('retries after 500s until the receiver accepts, and counts each outcome', async () => {
    const hook = await receiver();
    let failures = 3;
    hook.answer = () => (failures-- > 0 ? 500 : 204);
    const registry = new Registry();
    const logger = recordingLogger();
    const sender = dispatcher(
      { [APP_ID]: appWith([{ url: hook.url, event_types: ['member_added'] }]) },
      { ...unbatched, metrics: registry, logger },
    );
    sender.emit(APP_ID, webhookEvent.memberAdded('presence-room', 'u1'));
    await hook.waitFor((requests) => requests.some((request) => request.status === 204));
    expect(hook.requests.map((request) => request.status)).toEqual([500, 500, 500, 204]);
    expect(new Set(hook.requests.map((request) => request.rawBody)).size).toBe(1);
    expect(acceptedEvents(hook.requests)).toEqual([
      { name: 'member_added', channel: 'presence-room', user_id: 'u1' },
    ]);

    await until(async () => (await registry.metrics()).includes('outcome="sent"} 1'));
    const text = await registry.metrics();
    expect(text).toContain(`herald_webhook_requests_total{app_id="${APP_ID}",outcome="retried"} 3`);
    expect(text).toContain(`herald_webhook_requests_total{app_id="${APP_ID}",outcome="sent"} 1`);
    expect(text).toContain(`herald_webhook_delivery_seconds_count{app_id="${APP_ID}"} 1`);
    expect(text).toContain('herald_webhook_queue_depth 0');
    const warnings = logger.lines.filter((line) => line.message === 'webhook request failed; will retry');
    expect(warnings.map((line) => line.fields?.status)).toEqual([500, 500, 500]);
    expect(JSON.stringify(logger.lines)).not.toContain(APP.secret);
  });

  it('keeps events while the receiver is down and delivers all of them, in order, once it is back', async () => {
    const hook = await receiver();
    const port = Number(new URL(hook.url).port);
    await hook.close(); // Connection refused from here on.
    const sender = dispatcher(
      { [APP_ID]: appWith([{ url: hook.url, event_types: ['channel_occupied', 'channel_vacated'] }]) },
      { batching: { enabled: true, windowMs: 20 }, retry: { baseMs: 20, maxMs: 100, maxElapsedMs: 60_000 } },
    );
    const emitted: WebhookEvent[] = [];
    for (let i = 0; i < 30; i++) {
      const event =
        i % 2 ? webhookEvent.channelVacated(`room-${i % 5}`) : webhookEvent.channelOccupied(`room-${i % 5}`);
      emitted.push(event);
      sender.emit(APP_ID, event);
      if (i % 10 === 9) await sleep(150);
    }
    await sleep(300); // The receiver stays away a while: retries pile up meanwhile.
    const back = await startWebhookReceiver(port);
    cleanups.push(() => back.close());
    await back.waitFor((requests) => acceptedEvents(requests).length >= emitted.length);
    await sender.close();
    expect(acceptedEvents(back.requests)).toEqual(emitted);
  });

  it('gives up after the configured time, with an error log naming the status and a metric', async () => {
    const hook = await receiver();
    hook.answer = () => 503;
    const registry = new Registry();
    const logger = recordingLogger();
    const sender = dispatcher(
      { [APP_ID]: appWith([{ url: `${hook.url}?token=s3cr3t`, event_types: ['cache_miss'] }]) },
      { ...unbatched, metrics: registry, logger, retry: { baseMs: 10, maxMs: 40, maxElapsedMs: 400 } },
    );
    const started = Date.now();
    sender.emit(APP_ID, webhookEvent.cacheMiss('cache-x'));
    await until(() => logger.lines.some((line) => line.message === 'webhook request failed; giving up'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    const attempts = hook.requests.length;
    expect(attempts).toBeGreaterThan(2);
    expect(attempts).toBeLessThan(60); // Backoff spaces them out (without it, hundreds in 400 ms).
    const gaveUp = logger.lines.find((line) => line.message === 'webhook request failed; giving up');
    expect(gaveUp?.level).toBe('error');
    expect(gaveUp?.fields).toMatchObject({
      appId: APP_ID,
      status: 503,
      url: hook.url,
      events: 1,
      attempt: attempts,
    });
    expect(JSON.stringify(logger.lines)).not.toMatch(/s3cr3t|app-secret/);
    const text = await registry.metrics();
    expect(text).toContain(`herald_webhook_requests_total{app_id="${APP_ID}",outcome="failed"} 1`);
    expect(text).toContain(`herald_webhook_dropped_events_total{app_id="${APP_ID}",reason="gave_up"} 1`);
    // Nothing is retried after giving up: the lane sends its next job only once the given-up one is done with,
    // so a marker job queued after it is the very next request.
    await fence({
      received: () => hook.requests,
      sendMarker: () => sender.emit(APP_ID, webhookEvent.cacheMiss('cache-marker')),
      isMarker: (request) => request.rawBody.includes('cache-marker'),
    });
    expect(hook.requests.findIndex((request) => request.rawBody.includes('cache-marker'))).toBe(attempts);
  });

  it('counts a receiver that never answers as a failure after the request timeout, and retries', async () => {
    const hook = await receiver();
    let hung = 0;
    hook.answer = () => (hung++ < 1 ? 'hang' : 200);
    const sender = dispatcher(
      { [APP_ID]: appWith([{ url: hook.url, event_types: ['channel_occupied'] }]) },
      { ...unbatched, requestTimeoutMs: 200 },
    );
    sender.emit(APP_ID, webhookEvent.channelOccupied('room'));
    await hook.waitFor((requests) => requests.some((request) => request.status === 200));
    expect(hook.requests.map((request) => request.status)).toEqual([undefined, 200]);
    expect(hook.requests[1]!.receivedAt - hook.requests[0]!.receivedAt).toBeGreaterThanOrEqual(190);
  });
});

describe('webhook delivery under load', () => {
  it('keeps each channel in order (occupied never after the vacated that follows it) through random 500s', async () => {
    const hook = await receiver();
    hook.answer = () => (Math.random() < 0.3 ? 500 : 200);
    const sender = dispatcher(
      { [APP_ID]: appWith([{ url: hook.url, event_types: ['channel_occupied', 'channel_vacated'] }]) },
      { ...unbatched, retry: { baseMs: 2, maxMs: 10, maxElapsedMs: 60_000 } },
    );
    const emitted: WebhookEvent[] = [];
    for (let round = 0; round < 20; round++) {
      for (const channel of ['a', 'b', 'c']) {
        for (const event of [webhookEvent.channelOccupied(channel), webhookEvent.channelVacated(channel)]) {
          emitted.push(event);
          sender.emit(APP_ID, event);
        }
      }
    }
    await hook.waitFor((requests) => acceptedEvents(requests).length >= emitted.length, 60_000);
    expect(hook.requests.some((request) => request.status === 500)).toBe(true);
    const accepted = acceptedEvents(hook.requests);
    for (const channel of ['a', 'b', 'c']) {
      const names = accepted.filter((event) => event.channel === channel).map((event) => event.name);
      expect(names).toEqual(Array.from({ length: 20 }, () => ['channel_occupied', 'channel_vacated']).flat());
    }
    expect(accepted).toEqual(emitted);
  });

  it('a receiver that never answers does not slow emit()', async () => {
    const emitAll = async (answer: 'hang' | 200) => {
      const hook = await receiver();
      hook.answer = () => answer;
      const sender = dispatcher(
        { [APP_ID]: appWith([{ url: hook.url, event_types: ['client_event'] }]) },
        { batching: { enabled: true, windowMs: 5 }, requestTimeoutMs: 5000, maxQueuedPerApp: 1_000_000 },
      );
      const started = performance.now();
      for (let chunk = 0; chunk < 20; chunk++) {
        for (let i = 0; i < 1000; i++) {
          sender.emit(
            APP_ID,
            webhookEvent.clientEvent({
              channel: 'private-chat',
              event: 'client-x',
              data: `${i}`,
              socketId: '1.1',
            }),
          );
        }
        // Let the dispatcher's own work (timers, requests) run between chunks, as it would beside real traffic.
        await new Promise((resolve) => setImmediate(resolve));
      }
      return performance.now() - started;
    };
    await emitAll(200); // Warm-up: JIT and sockets, not measured.
    const healthy = await emitAll(200);
    const dead = await emitAll('hang');
    expect(dead).toBeLessThan(healthy * 5 + 250);
  });

  it('caps the events an app may have queued, with a metric and a log line instead of growing', async () => {
    const hook = await receiver();
    hook.answer = () => 'hang';
    const registry = new Registry();
    const logger = recordingLogger();
    const sender = dispatcher(
      { [APP_ID]: appWith([{ url: hook.url, event_types: ['subscription_count'] }]) },
      { ...unbatched, maxQueuedPerApp: 10, requestTimeoutMs: 300, metrics: registry, logger },
    );
    for (let i = 0; i < 50; i++) sender.emit(APP_ID, webhookEvent.subscriptionCount('room', i));
    await hook.waitFor((requests) => requests.length >= 1);
    for (let i = 50; i < 55; i++) sender.emit(APP_ID, webhookEvent.subscriptionCount('room', i));
    await until(async () =>
      (await registry.metrics()).includes(
        `herald_webhook_dropped_events_total{app_id="${APP_ID}",reason="queue_full"} 45`,
      ),
    );
    hook.answer = () => 200;
    await hook.waitFor((requests) => acceptedEvents(requests).length >= 10);
    await sender.close();
    expect(acceptedEvents(hook.requests)).toEqual(
      Array.from({ length: 10 }, (_, i) => ({
        name: 'subscription_count',
        channel: 'room',
        subscription_count: i,
      })),
    );
    const dropLines = logger.lines.filter((line) => line.message === 'webhook events dropped');
    expect(dropLines.length).toBe(1);
    expect(dropLines[0]).toMatchObject({ level: 'error', fields: { appId: APP_ID, reason: 'queue_full' } });
  });

  it('never throws into the caller: an app lookup that throws or an unknown app is ignored', async () => {
    const logger = recordingLogger();
    const sender = createWebhookDispatcher({
      apps: (appId) => {
        if (appId === 'broken') throw new Error('store down');
        return undefined;
      },
      logger,
    });
    cleanups.push(() => sender.close({ drainMs: 0 }));
    expect(() => sender.emit('broken', webhookEvent.channelOccupied('x'))).not.toThrow();
    expect(() => sender.emit('unknown', webhookEvent.channelOccupied('x'))).not.toThrow();
    expect(logger.lines).toEqual([
      {
        level: 'error',
        message: 'webhook emit failed',
        fields: { appId: 'broken', event: 'channel_occupied', error: 'store down' },
      },
    ]);
  });
});

describe('apps that change', () => {
  it('signs with the secret current at send time and drops the requests of a removed app or webhook', async () => {
    const hook = await receiver();
    hook.answer = () => 503;
    const registry = new Registry();
    const apps: Record<string, WebhookApp> = {
      [APP_ID]: appWith([{ url: hook.url, event_types: ['channel_occupied'] }]),
      'app-2': appWith([{ url: hook.url, event_types: ['channel_occupied'] }]),
      'app-3': appWith([{ url: hook.url, event_types: ['channel_occupied'] }]),
    };
    const sender = dispatcher(apps, { ...unbatched, metrics: registry, retry: { baseMs: 50, maxMs: 50 } });
    sender.emit(APP_ID, webhookEvent.channelOccupied('one'));
    sender.emit('app-2', webhookEvent.channelOccupied('two'));
    sender.emit('app-3', webhookEvent.channelOccupied('three'));
    await hook.waitFor((requests) => requests.length >= 3);
    const rotated = { key: APP.key, secret: 'rotated-secret' };
    apps[APP_ID] = { ...rotated, webhooks: apps[APP_ID]!.webhooks };
    delete apps['app-2'];
    apps['app-3'] = appWith([{ url: `${hook.url}/elsewhere`, event_types: ['channel_occupied'] }]);
    // A receiver that knows only the new secret: a retry already on its way, signed with the old one, is refused
    // like any forged request, and the next attempt must carry the new signature.
    hook.answer = (request) => (verify(request, rotated).valid ? 200 : 401);
    await hook.waitFor((requests) => requests.some((request) => request.status === 200));
    await until(async () =>
      (await registry.metrics()).includes(
        'herald_webhook_dropped_events_total{app_id="app-2",reason="unknown_app"} 1',
      ),
    );
    await sender.close();
    expect(acceptedEvents(hook.requests, rotated)).toEqual([{ name: 'channel_occupied', channel: 'one' }]);
  });
});

describe('an app store that fails', () => {
  it('counts a failed lookup at send time as a failed attempt and retries it', async () => {
    const hook = await receiver();
    const app = appWith([{ url: hook.url, event_types: ['channel_occupied'] }]);
    let lookups = 0;
    const logger = recordingLogger();
    const sender = dispatcher(
      {},
      {
        ...unbatched,
        logger,
        // The first lookup (at emit) answers; the next two (at send) fail as a store that is down would.
        apps: () => {
          lookups += 1;
          if (lookups === 2 || lookups === 3) throw new Error('store down');
          return app;
        },
      },
    );
    sender.emit(APP_ID, webhookEvent.channelOccupied('room'));
    await hook.waitFor((requests) => requests.length >= 1);
    expect(acceptedEvents(hook.requests)).toEqual([{ name: 'channel_occupied', channel: 'room' }]);
    expect(
      logger.lines
        .filter((line) => line.message === 'webhook request failed; will retry')
        .map((line) => line.fields?.error),
    ).toEqual(['app lookup failed: store down', 'app lookup failed: store down']);
  });
});

describe('isStillTrue: events checked as their batch enters the queue', () => {
  const occupancy = ['channel_occupied', 'channel_vacated'] as const;

  /** A cluster's occupancy as a set of occupied channels, checked the way apps/realtime checks it. */
  const stateCheck = (occupied: Set<string>) => (_appId: string, event: WebhookEvent) =>
    event.name === 'channel_occupied'
      ? Promise.resolve(occupied.has(event.channel))
      : event.name === 'channel_vacated'
        ? Promise.resolve(!occupied.has(event.channel))
        : true;

  it('leaves out the last change of a channel that no longer holds, signs what is left, counts and logs it', async () => {
    const hook = await receiver();
    const registry = new Registry();
    const logger = recordingLogger();
    const checked: string[] = [];
    const check = stateCheck(new Set(['stays']));
    const sender = dispatcher(
      { [APP_ID]: appWith([{ url: hook.url, event_types: [...occupancy, 'client_event'] }]) },
      {
        batching: { enabled: true, windowMs: 100 },
        isStillTrue: (appId, event) => {
          checked.push(`${event.name} ${event.channel}`);
          return check(appId, event);
        },
        metrics: registry,
        logger,
      },
    );
    // Occupied again elsewhere after this node saw it vacated: the vacated was overtaken.
    sender.emit(APP_ID, webhookEvent.channelOccupied('stays'));
    sender.emit(APP_ID, webhookEvent.channelVacated('stays'));
    sender.emit(
      APP_ID,
      webhookEvent.clientEvent({ channel: 'private-a', event: 'client-x', data: '{}', socketId: '1.2' }),
    );
    // Vacated elsewhere since: the occupied was overtaken.
    sender.emit(APP_ID, webhookEvent.channelOccupied('left'));
    await hook.waitFor((requests) => requests.length >= 1);
    await sender.close();
    expect(hook.requests.map((request) => verify(request))).toEqual([
      {
        valid: true,
        events: [
          { name: 'channel_occupied', channel: 'stays' },
          { name: 'client_event', channel: 'private-a', event: 'client-x', data: '{}', socket_id: '1.2' },
        ],
      },
    ]);
    expect(Object.keys(JSON.parse(hook.requests[0]!.rawBody))).toEqual(['time_ms', 'events']);
    // Only the last change of each channel is asked about; client events never are.
    expect(checked.sort()).toEqual(['channel_occupied left', 'channel_vacated stays']);
    expect(await registry.metrics()).toContain(`herald_webhook_stale_events_total{app_id="${APP_ID}"} 2`);
    expect(logger.lines.filter((line) => line.message.includes('overtaken'))).toEqual([
      {
        level: 'info',
        message: 'webhook events overtaken by a later change; left out',
        fields: { appId: APP_ID, url: hook.url, events: 2 },
      },
    ]);
  });

  it("checks the last subscription count of each channel in a batch, and keeps the channel's earlier ones", async () => {
    const hook = await receiver();
    const asked: string[] = [];
    // The counts now: 'grew' went on to 3 elsewhere, 'steady' is still at 2.
    const now = new Map([
      ['grew', 3],
      ['steady', 2],
    ]);
    const sender = dispatcher(
      { [APP_ID]: appWith([{ url: hook.url, event_types: ['subscription_count'] }]) },
      {
        batching: { enabled: true, windowMs: 100 },
        isStillTrue: (_appId, event) => {
          asked.push(`${event.name} ${event.channel}`);
          return event.name === 'subscription_count'
            ? now.get(event.channel) === event.subscription_count
            : true;
        },
      },
    );
    sender.emit(APP_ID, webhookEvent.subscriptionCount('grew', 1));
    sender.emit(APP_ID, webhookEvent.subscriptionCount('steady', 1));
    sender.emit(APP_ID, webhookEvent.subscriptionCount('steady', 2));
    await hook.waitFor((requests) => requests.length >= 1);
    await sender.close();
    expect(acceptedEvents(hook.requests)).toEqual([
      { name: 'subscription_count', channel: 'steady', subscription_count: 1 },
      { name: 'subscription_count', channel: 'steady', subscription_count: 2 },
    ]);
    expect(asked.sort()).toEqual(['subscription_count grew', 'subscription_count steady']);
  });

  it("keeps a channel's earlier changes in a batch whose last change still holds", async () => {
    const hook = await receiver();
    const sender = dispatcher(
      { [APP_ID]: appWith([{ url: hook.url, event_types: [...occupancy] }]) },
      { batching: { enabled: true, windowMs: 100 }, isStillTrue: stateCheck(new Set()) },
    );
    sender.emit(APP_ID, webhookEvent.channelOccupied('brief'));
    sender.emit(APP_ID, webhookEvent.channelVacated('brief'));
    await hook.waitFor((requests) => requests.length >= 1);
    await sender.close();
    expect(acceptedEvents(hook.requests)).toEqual([
      { name: 'channel_occupied', channel: 'brief' },
      { name: 'channel_vacated', channel: 'brief' },
    ]);
  });

  it('checks only once the emitting call stack has finished the change it reported', async () => {
    const hook = await receiver();
    const occupied = new Set<string>();
    const sender = dispatcher(
      { [APP_ID]: appWith([{ url: hook.url, event_types: [...occupancy] }]) },
      { ...unbatched, isStillTrue: stateCheck(occupied) },
    );
    // As the server does alone: occupied is emitted as the channel is created, before its subscriber is counted.
    sender.emit(APP_ID, webhookEvent.channelOccupied('new'));
    occupied.add('new');
    await hook.waitFor((requests) => requests.length >= 1);
    expect(acceptedEvents(hook.requests)).toEqual([{ name: 'channel_occupied', channel: 'new' }]);
  });

  it('queues no request when every event of it was overtaken', async () => {
    const hook = await receiver();
    const registry = new Registry();
    const sender = dispatcher(
      { [APP_ID]: appWith([{ url: hook.url, event_types: [...occupancy] }]) },
      { ...unbatched, isStillTrue: stateCheck(new Set()), metrics: registry },
    );
    sender.emit(APP_ID, webhookEvent.channelOccupied('gone'));
    sender.emit(APP_ID, webhookEvent.channelVacated('gone'));
    await hook.waitFor((requests) => requests.length >= 1);
    await sender.close();
    expect(acceptedEvents(hook.requests)).toEqual([{ name: 'channel_vacated', channel: 'gone' }]);
    const text = await registry.metrics();
    expect(text).toContain(`herald_webhook_stale_events_total{app_id="${APP_ID}"} 1`);
    expect(text).toContain('herald_webhook_queue_depth 0');
  });

  it('does not check again once queued: a receiver that was down gets every change that held then, in order', async () => {
    const hook = await receiver();
    const occupied = new Set<string>();
    let checks = 0;
    const check = stateCheck(occupied);
    let failures = 2;
    hook.answer = () => (failures-- > 0 ? 500 : 200);
    const sender = dispatcher(
      { [APP_ID]: appWith([{ url: hook.url, event_types: [...occupancy] }]) },
      {
        ...unbatched,
        isStillTrue: (appId, event) => {
          checks += 1;
          return check(appId, event);
        },
      },
    );
    occupied.add('room');
    sender.emit(APP_ID, webhookEvent.channelOccupied('room'));
    await hook.waitFor((requests) => requests.length >= 1);
    occupied.delete('room'); // While the first request is being retried.
    sender.emit(APP_ID, webhookEvent.channelVacated('room'));
    await hook.waitFor((requests) => acceptedEvents(requests).length >= 2);
    await sender.close();
    expect(acceptedEvents(hook.requests)).toEqual([
      { name: 'channel_occupied', channel: 'room' },
      { name: 'channel_vacated', channel: 'room' },
    ]);
    expect(checks).toBe(2);
  });

  it('queues an event as emitted when its check throws or rejects, with a warning', async () => {
    const hook = await receiver();
    const logger = recordingLogger();
    const sender = dispatcher(
      { [APP_ID]: appWith([{ url: hook.url, event_types: [...occupancy] }]) },
      {
        batching: { enabled: true, windowMs: 50 },
        logger,
        isStillTrue: (_appId, event) => {
          if (event.channel === 'a') throw new Error('redis away');
          return Promise.reject(new Error('redis away'));
        },
      },
    );
    sender.emit(APP_ID, webhookEvent.channelOccupied('a'));
    sender.emit(APP_ID, webhookEvent.channelVacated('b'));
    await hook.waitFor((requests) => requests.length >= 1);
    await sender.close();
    expect(acceptedEvents(hook.requests)).toEqual([
      { name: 'channel_occupied', channel: 'a' },
      { name: 'channel_vacated', channel: 'b' },
    ]);
    expect(logger.lines.find((line) => line.message.includes('check failed'))).toMatchObject({
      level: 'warn',
      fields: { appId: APP_ID, error: 'redis away' },
    });
  });

  it('keeps a leave-and-rejoin decided on two nodes from ending "vacated" when their batches cross', async () => {
    // Two dispatchers on one shared queue, as two nodes on one Redis: node A gathers events for a long window,
    // node B sends at once. A decides the vacate, then B the re-occupy; B's request reaches the queue first.
    const occupied = new Set<string>();
    const run = async (isStillTrue: WebhookDispatcherOptions['isStillTrue']) => {
      const hook = await receiver();
      const queue = createMemoryWebhookQueue();
      const apps = { [APP_ID]: appWith([{ url: hook.url, event_types: [...occupancy] }]) };
      const nodeA = dispatcher(apps, { queue, batching: { enabled: true, windowMs: 300 }, isStillTrue });
      const nodeB = dispatcher(apps, { queue, ...unbatched, isStillTrue });
      occupied.delete('room');
      nodeA.emit(APP_ID, webhookEvent.channelVacated('room'));
      occupied.add('room');
      nodeB.emit(APP_ID, webhookEvent.channelOccupied('room'));
      await hook.waitFor((requests) => requests.length >= 1);
      await Promise.all([nodeA.close(), nodeB.close()]);
      return acceptedEvents(hook.requests).map((event) => event.name);
    };
    // Without the check the receiver ends on "vacated" while the channel is occupied; with it, on "occupied".
    expect(await run(undefined)).toEqual(['channel_occupied', 'channel_vacated']);
    expect(await run(stateCheck(occupied))).toEqual(['channel_occupied']);
  });
});

describe('WebhookDispatcher.close', () => {
  it('sends the batch being gathered before it resolves', async () => {
    const hook = await receiver();
    const sender = dispatcher(
      { [APP_ID]: appWith([{ url: hook.url, event_types: ['member_removed'] }]) },
      { batching: { enabled: true, windowMs: 60_000 } },
    );
    sender.emit(APP_ID, webhookEvent.memberRemoved('presence-a', 'u1'));
    sender.emit(APP_ID, webhookEvent.memberRemoved('presence-a', 'u2'));
    await sender.close();
    expect(hook.requests.map((request) => verify(request))).toEqual([
      {
        valid: true,
        events: [
          { name: 'member_removed', channel: 'presence-a', user_id: 'u1' },
          { name: 'member_removed', channel: 'presence-a', user_id: 'u2' },
        ],
      },
    ]);
  });

  it('refuses a request timeout that is not below the lease of its queue', () => {
    expect(() =>
      createWebhookDispatcher({
        apps: () => undefined,
        queue: createMemoryWebhookQueue({ leaseMs: 1000 }),
        requestTimeoutMs: 1000,
      }),
    ).toThrow(/requestTimeoutMs \(1000\) must be positive and below the queue's leaseMs \(1000\)/);
  });
});
