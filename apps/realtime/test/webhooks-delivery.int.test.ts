import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fence, until } from '@herald/test-kit';
import { type ReceivedRequest, startWebhookReceiver, type WebhookReceiver } from '@herald/webhooks/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type PusherClient, pusherJsClient } from './pusher-client.js';
import { pusherSdk } from './pusher-sdk.js';
import { type RunningBin, startBin } from './run-bin.js';

// Delivery through the running app: pusher-js clients make the events, `realtime` sends them, and a loopback
// receiver checks every request with the official `pusher` SDK's webhook helper.

const APP = { id: 'shop', key: 'shop-key', secret: 'shop-secret' };
const OCCUPANCY = ['channel_occupied', 'channel_vacated'];
type Event = { name: string; channel?: string };

const cleanups: Array<() => Promise<unknown> | undefined> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function receiverAt(port?: number): Promise<WebhookReceiver> {
  const receiver = await startWebhookReceiver(port);
  cleanups.push(() => receiver.close());
  return receiver;
}

/** `realtime` alone, with one app whose webhooks go to `url`, and the given `webhooks` delivery settings. */
async function serverWith(
  url: string,
  settings: Record<string, unknown>,
  eventTypes: readonly string[] = OCCUPANCY,
): Promise<RunningBin> {
  const cwd = mkdtempSync(join(tmpdir(), 'herald-webhook-delivery-'));
  writeFileSync(
    join(cwd, 'realtime.config.json'),
    JSON.stringify({
      applications: [{ ...APP, webhooks: [{ url, event_types: eventTypes }] }],
      webhooks: settings,
    }),
  );
  const bin = await startBin([], { cwd });
  cleanups.push(() => bin.stop());
  return bin;
}

function client(bin: RunningBin, signed = false): PusherClient {
  const made = pusherJsClient(bin.port, APP.key, signed ? pusherSdk(APP, bin.port) : undefined);
  cleanups.push(async () => made.disconnect());
  return made;
}

async function subscribed(pusher: PusherClient, channel: string) {
  const subscription = pusher.subscribe(channel);
  await new Promise((resolve) => subscription.bind('pusher:subscription_succeeded', resolve));
  return subscription;
}

/** The events of every request answered 2xx, in order; every request must pass the pusher SDK's check. */
function accepted(requests: readonly ReceivedRequest[], port: number): Event[] {
  const verifier = pusherSdk(APP, port);
  return requests.flatMap((request) => {
    const webhook = verifier.webhook({ headers: request.headers, rawBody: request.rawBody });
    if (!webhook.isValid()) throw new Error(`the pusher SDK refused a request: ${request.rawBody}`);
    const ok = request.status !== undefined && request.status >= 200 && request.status < 300;
    return ok ? (webhook.getEvents() as Event[]) : [];
  });
}

/** One sample of a counter in the server's /metrics (0 when absent). */
async function sample(bin: RunningBin, series: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${bin.port}/metrics`)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}
const requests = (outcome: string) => `herald_webhook_requests_total{app_id="shop",outcome="${outcome}"}`;

const occupied = (channel: string) => ({ name: 'channel_occupied', channel });
const vacated = (channel: string) => ({ name: 'channel_vacated', channel });

// Each case starts its own server and waits on real retries: generous limits for a busy machine.
describe('webhooks delivered by a running server', { timeout: 120_000 }, () => {
  it('retries after 500s and delivers each event once, in order', async () => {
    const receiver = await receiverAt();
    let failures = 2;
    receiver.answer = () => (failures-- > 0 ? 500 : 200);
    const bin = await serverWith(receiver.url, {
      batching: { enabled: false },
      retry: { base_ms: 50, max_ms: 200 },
    });
    const pusher = client(bin);
    await subscribed(pusher, 'alpha');
    await subscribed(pusher, 'beta');
    pusher.unsubscribe('alpha');

    await until(async () => (await sample(bin, requests('sent'))) === 3);
    expect(accepted(receiver.requests, bin.port)).toEqual([
      occupied('alpha'),
      occupied('beta'),
      vacated('alpha'),
    ]);
    // The first request failed twice and held the ones behind it back: nothing overtook it, nothing came twice.
    expect(receiver.requests.map((request) => request.status)).toEqual([500, 500, 200, 200, 200]);
    expect(await sample(bin, requests('retried'))).toBe(2);
    expect(await sample(bin, 'herald_webhook_queue_depth')).toBe(0);
  });

  it('keeps the events while the receiver is down and delivers all of them, in order, once it is back', async () => {
    const gone = await startWebhookReceiver();
    const port = Number(new URL(gone.url).port);
    await gone.close(); // Connection refused from now on.
    const bin = await serverWith(gone.url, {
      batching: { enabled: true, window_ms: 50 },
      retry: { base_ms: 100, max_ms: 400, max_elapsed_ms: 120_000 },
    });
    const first = client(bin);
    const second = client(bin);
    await subscribed(first, 'room-1');
    await subscribed(first, 'room-2');
    await subscribed(second, 'room-2');
    first.unsubscribe('room-1');
    first.unsubscribe('room-2'); // room-2 keeps its other subscriber: no event.
    // Two sockets' frames have no order between them: wait until the server has taken the first's unsubscribes
    // (only second's room-2 is left) before the second socket subscribes room-3.
    await until(async () => (await sample(bin, 'herald_subscriptions{app_id="shop"}')) === 1);
    await subscribed(second, 'room-3');
    second.unsubscribe('room-2');
    const expected = [
      occupied('room-1'),
      occupied('room-2'),
      vacated('room-1'),
      occupied('room-3'),
      vacated('room-2'),
    ];
    // Down for a while: several attempts refused.
    await until(async () => (await sample(bin, requests('retried'))) >= 3);

    const back = await receiverAt(port);
    await back.waitFor((received) => accepted(received, bin.port).length >= expected.length, 60_000);
    await until(async () => (await sample(bin, 'herald_webhook_queue_depth')) === 0);
    expect(accepted(back.requests, bin.port)).toEqual(expected);
    expect(await sample(bin, 'herald_webhook_dropped_events_total{app_id="shop",reason="gave_up"}')).toBe(0);
  });

  it('gives up after retry.max_elapsed_ms with an error in the webhooks log scope and the failed metric', async () => {
    const receiver = await receiverAt();
    receiver.answer = () => 503;
    const bin = await serverWith(`${receiver.url}?token=s3cr3t`, {
      batching: { enabled: false },
      retry: { base_ms: 50, max_ms: 200, max_elapsed_ms: 1500 },
    });
    const pusher = client(bin);
    await subscribed(pusher, 'doomed');

    const gaveUp = () =>
      bin.stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line.msg === 'webhook request failed; giving up');
    await until(() => gaveUp() !== undefined);
    expect(gaveUp()).toMatchObject({
      level: 50, // pino's error
      scope: 'webhooks',
      appId: 'shop',
      status: 503,
      url: receiver.url,
      events: 1,
    });
    expect(bin.stdout).not.toMatch(/shop-secret|s3cr3t/);
    await until(async () => (await sample(bin, requests('failed'))) === 1);
    expect(await sample(bin, 'herald_webhook_dropped_events_total{app_id="shop",reason="gave_up"}')).toBe(1);
    const attempts = receiver.requests.length;
    expect(attempts).toBeGreaterThan(1);
    // Nothing is retried after giving up: the lane sends its next job only once the given-up one is done with,
    // so a marker job queued after it is the very next request.
    const isMarker = (request: ReceivedRequest) => request.rawBody.includes('"fence-marker"');
    await fence({
      received: () => receiver.requests,
      sendMarker: () => subscribed(pusher, 'fence-marker'),
      isMarker,
    });
    expect(receiver.requests.findIndex(isMarker)).toBe(attempts);
  });

  it('does not slow a fan-out while the receiver never answers', async () => {
    const receiver = await receiverAt();
    const bin = await serverWith(
      receiver.url,
      { batching: { enabled: true, window_ms: 20 }, request_timeout_ms: 20_000, queue_lease_ms: 30_000 },
      ['client_event', ...OCCUPANCY],
    );
    const listeners = 20;
    const perBurst = 100;
    const received = new Map<number, number>();
    for (let i = 0; i < listeners; i++) {
      const channel = await subscribed(client(bin), 'news');
      channel.bind('tick', (data: { burst: number }) =>
        received.set(data.burst, (received.get(data.burst) ?? 0) + 1),
      );
    }
    // A client sending client events all through each burst keeps webhook requests coming.
    const chat = await subscribed(client(bin, true), 'private-chat');
    const sdk = pusherSdk(APP, bin.port);
    let bursts = 0;
    const burst = async () => {
      const id = ++bursts;
      const started = performance.now();
      for (let sent = 0; sent < perBurst; sent += 10) {
        await Promise.all(
          Array.from({ length: 10 }, (_, i) => sdk.trigger('news', 'tick', { burst: id, i: sent + i })),
        );
        for (let i = 0; i < 10; i++) chat.trigger('client-typing', { burst: id });
      }
      await until(() => received.get(id) === listeners * perBurst);
      return performance.now() - started;
    };

    await burst(); // Warm-up: JIT, sockets; not measured.
    const healthy = await burst();
    receiver.answer = () => 'hang';
    const stuck = await burst();
    // The receiver was stuck from the burst's first client events: a request still hangs, the rest queue behind.
    expect(receiver.requests.some((request) => request.status === undefined)).toBe(true);
    expect(await sample(bin, 'herald_webhook_queue_depth')).toBeGreaterThan(0);
    // Generous: a busy machine varies a lot, but a fan-out held up by webhooks would take many times longer.
    expect(stuck).toBeLessThan(healthy * 3 + 2000);
  });
});
