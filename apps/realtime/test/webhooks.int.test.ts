import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ReceivedRequest, startWebhookReceiver, type WebhookReceiver } from '@herald/webhooks/testing';
import type Pusher from 'pusher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pusherJsClient } from './pusher-client.js';
import { pusherSdk } from './pusher-sdk.js';
import { socket } from './raw-socket.js';
import { type RunningBin, runBin, startBin } from './run-bin.js';

const APP = { id: 'shop', key: 'shop-key', secret: 'shop-secret' };
const sdk = (port: number) => pusherSdk(APP, port);

type Event = Record<string, unknown> & { name: string };

/** Every event the receiver got, each request checked first with the official SDK's webhook helper. */
function verifiedEvents(receiver: WebhookReceiver, verifier: Pusher): Event[] {
  return receiver.requests.flatMap((request: ReceivedRequest) => {
    const webhook = verifier.webhook({ headers: request.headers, rawBody: request.rawBody });
    if (!webhook.isValid()) throw new Error(`invalid webhook: ${request.rawBody}`);
    expect(request.headers['x-pusher-key']).toBe(APP.key);
    expect(request.headers['content-type']).toBe('application/json');
    const body = JSON.parse(request.rawBody) as { time_ms: number; events: Event[] };
    expect(typeof body.time_ms).toBe('number');
    expect(webhook.getEvents()).toEqual(body.events);
    return body.events;
  });
}

describe('webhooks from a running server', () => {
  let receiver: WebhookReceiver;
  let filtered: WebhookReceiver;
  let bin: RunningBin;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    filtered = await startWebhookReceiver();
    const cwd = mkdtempSync(join(tmpdir(), 'herald-webhooks-'));
    writeFileSync(
      join(cwd, 'realtime.config.json'),
      JSON.stringify({
        applications: [
          {
            ...APP,
            accept_client_events_from: 'members',
            webhooks: [
              {
                url: receiver.url,
                event_types: [
                  'channel_occupied',
                  'channel_vacated',
                  'member_added',
                  'member_removed',
                  'client_event',
                  'cache_miss',
                ],
              },
              {
                url: filtered.url,
                event_types: ['channel_occupied'],
                filter: { channel_name_starts_with: 'private-', channel_name_ends_with: '-orders' },
                headers: { 'X-Tenant': 'acme' },
              },
            ],
          },
        ],
        webhooks: { batching: { enabled: true, window_ms: 50 } },
      }),
    );
    bin = await startBin([], { cwd });
  });

  afterAll(async () => {
    await bin?.stop();
    await Promise.all([receiver?.close(), filtered?.close()]);
  });

  it('sends every event type with Pusher payloads, signed so the pusher SDK accepts them', async () => {
    const verifier = sdk(bin.port);
    const alice = await socket(bin.port, '', APP);
    const bob = await socket(bin.port, '', APP);
    await alice.subscribe('news');
    await alice.subscribe(
      'presence-room',
      JSON.stringify({ user_id: 'alice', user_info: { name: 'Alice' } }),
    );
    await bob.subscribe('presence-room', JSON.stringify({ user_id: 'bob' }));
    alice.send({ event: 'client-typing', channel: 'presence-room', data: { typing: true } });
    await alice.subscribe('cache-prices');
    await receiver.waitFor(() => verifiedEvents(receiver, verifier).length >= 6);
    alice.send({ event: 'pusher:unsubscribe', data: { channel: 'news' } });
    bob.ws.close();
    await receiver.waitFor(() => verifiedEvents(receiver, verifier).length >= 8);

    const events = verifiedEvents(receiver, verifier);
    expect(events).toEqual(
      expect.arrayContaining([
        { name: 'channel_occupied', channel: 'news' },
        { name: 'channel_occupied', channel: 'presence-room' },
        { name: 'member_added', channel: 'presence-room', user_id: 'alice' },
        { name: 'member_added', channel: 'presence-room', user_id: 'bob' },
        {
          name: 'client_event',
          channel: 'presence-room',
          event: 'client-typing',
          data: '{"typing":true}',
          socket_id: alice.socketId,
          user_id: 'alice',
        },
        { name: 'channel_occupied', channel: 'cache-prices' },
        { name: 'cache_miss', channel: 'cache-prices' },
        { name: 'channel_vacated', channel: 'news' },
        { name: 'member_removed', channel: 'presence-room', user_id: 'bob' },
      ]),
    );
    // Each change once: a second socket of a channel or a user adds nothing.
    expect(
      events.filter((event) => event.name === 'channel_occupied' && event.channel === 'presence-room'),
    ).toHaveLength(1);
    // Close together, so batched: fewer requests than events.
    expect(receiver.requests.length).toBeLessThan(events.length);
    // Counted in /metrics by app and outcome, with the delivery latency.
    const metrics = await (await fetch(`http://127.0.0.1:${bin.port}/metrics`)).text();
    expect(metrics).toMatch(
      /herald_webhook_requests_total\{[^}]*app_id="shop"[^}]*outcome="sent"[^}]*\} [1-9]/,
    );
    expect(metrics).toContain('herald_webhook_delivery_seconds');
    expect(metrics).toContain('herald_webhook_queue_depth');
    alice.ws.close();
  });

  it('sends only what a webhook filters in, with its own headers', async () => {
    const client = await socket(bin.port, '', APP);
    await client.subscribe('private-shop-orders');
    await client.subscribe('private-shop-refunds');
    await client.subscribe('public-orders');
    await filtered.waitFor((requests) => requests.length >= 1);
    // A channel the filter lets in, occupied after the others: its webhook follows any they would have caused.
    await client.subscribe('private-fence-orders');
    await filtered.waitFor(() =>
      verifiedEvents(filtered, sdk(bin.port)).some((event) => event.channel === 'private-fence-orders'),
    );
    const events = verifiedEvents(filtered, sdk(bin.port)).filter(
      (event) => event.channel !== 'private-fence-orders',
    );
    expect(events).toEqual([{ name: 'channel_occupied', channel: 'private-shop-orders' }]);
    expect(filtered.requests[0]?.headers['x-tenant']).toBe('acme');
    client.ws.close();
  });

  it('relays client events from pusher-js on a private channel as client_event webhooks', async () => {
    const pusher = (auth: boolean) => pusherJsClient(bin.port, APP.key, auth ? sdk(bin.port) : undefined);
    const sender = pusher(true);
    const channel = sender.subscribe('private-chat');
    await new Promise((resolve) => channel.bind('pusher:subscription_succeeded', resolve));
    channel.trigger('client-hello', { text: 'hi' });
    await receiver.waitFor(() =>
      verifiedEvents(receiver, sdk(bin.port)).some((event) => event.event === 'client-hello'),
    );
    const relayed = verifiedEvents(receiver, sdk(bin.port)).find((event) => event.event === 'client-hello');
    expect(relayed).toEqual({
      name: 'client_event',
      channel: 'private-chat',
      event: 'client-hello',
      data: '{"text":"hi"}',
      socket_id: sender.connection.socket_id,
    });
    sender.disconnect();
  });
});

describe('subscription_count webhooks', () => {
  it('follow the throttled count of a channel, ending on the true count', async () => {
    const receiver = await startWebhookReceiver();
    const cwd = mkdtempSync(join(tmpdir(), 'herald-webhooks-count-'));
    writeFileSync(
      join(cwd, 'realtime.config.json'),
      JSON.stringify({
        applications: [
          {
            ...APP,
            enable_subscription_count: true,
            subscription_count_interval_ms: 200,
            webhooks: [{ url: receiver.url, event_types: ['subscription_count'] }],
          },
        ],
      }),
    );
    const bin = await startBin([], { cwd });
    try {
      const clients = await Promise.all(Array.from({ length: 5 }, () => socket(bin.port, '', APP)));
      await Promise.all(clients.map((client) => client.subscribe('tally')));
      const counts = () =>
        verifiedEvents(receiver, sdk(bin.port))
          .filter((event) => event.channel === 'tally')
          .map((event) => event.subscription_count);
      await receiver.waitFor(() => counts().at(-1) === 5);
      expect(verifiedEvents(receiver, sdk(bin.port))[0]).toMatchObject({
        name: 'subscription_count',
        channel: 'tally',
      });
      expect(counts().length).toBeLessThan(5);
      clients[0]?.ws.close();
      await receiver.waitFor(() => counts().at(-1) === 4);
      for (const client of clients.slice(1)) client.ws.close();
    } finally {
      await bin.stop();
      await receiver.close();
    }
  });
});

describe('webhook configuration', () => {
  it('refuses to start on a bad URL or an unknown event type, naming the key path', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'herald-webhooks-bad-'));
    writeFileSync(
      join(cwd, 'realtime.config.json'),
      JSON.stringify({
        applications: [
          {
            ...APP,
            webhooks: [{ url: 'ftp://example.com', event_types: ['channel_occupied', 'channel_exploded'] }],
          },
        ],
      }),
    );
    const result = await runBin(['server', '--port', '0'], { cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('applications.0.webhooks.0.url');
    expect(result.stderr).toContain('applications.0.webhooks.0.event_types.1');
  });

  it('takes webhooks from REALTIME_APP_WEBHOOKS and names a bad one', async () => {
    const receiver = await startWebhookReceiver();
    const cwd = mkdtempSync(join(tmpdir(), 'herald-webhooks-env-'));
    const bin = await startBin([], {
      cwd,
      env: {
        REALTIME_APP_WEBHOOKS: JSON.stringify([{ url: receiver.url, event_types: ['channel_occupied'] }]),
      },
    });
    try {
      const client = await socket(bin.port, '', { key: 'herald-demo-key', secret: 'herald-demo-secret' });
      await client.subscribe('from-env');
      await receiver.waitFor((requests) => requests.length >= 1);
      expect(JSON.parse(receiver.requests[0]?.rawBody ?? '{}').events).toEqual([
        { name: 'channel_occupied', channel: 'from-env' },
      ]);
      client.ws.close();
    } finally {
      await bin.stop();
      await receiver.close();
    }
    const bad = await runBin(['server', '--port', '0'], {
      cwd,
      env: { REALTIME_APP_WEBHOOKS: '[{"url":"nope"}]' },
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('REALTIME_APP_WEBHOOKS');
  });
});
