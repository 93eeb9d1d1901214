import { randomBytes } from 'node:crypto';
import { type RedisProcess, startRedis, until } from '@herald/test-kit';
import { startWebhookReceiver, type WebhookReceiver } from '@herald/webhooks/testing';
import type Pusher from 'pusher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterNodeDir } from './cluster-node-dir.js';
import { pusherSdk } from './pusher-sdk.js';
import { socket } from './raw-socket.js';
import { type RunningBin, startBin } from './run-bin.js';

// Two nodes on one Redis, node A gathering its webhook events for a long batching window and node B sending at
// once. A change decided on A and the opposite change decided on B moments later reach the shared queue in the
// reverse order; what the receiver ends on must still be the cluster's state, and an occupied must never come
// after the vacated that followed it.

const APP = { id: 'shop', key: 'shop-key', secret: 'shop-secret' };
// A second app whose hooks carry subscription counts (kept apart so the counts do not mix with the events above).
const COUNTS = { id: 'counts', key: 'counts-key', secret: 'counts-secret' };
const SLOW_WINDOW_MS = 5000;
type Event = { name: string; channel: string; user_id?: string };

const sdkFor = (port: number, app = APP) => pusherSdk(app, port);

describe('webhook order for one channel across two nodes', () => {
  let redis: RedisProcess;
  let receiver: WebhookReceiver;
  let slow: RunningBin;
  let fast: RunningBin;
  let verifier: Pusher;

  beforeAll(async () => {
    redis = await startRedis();
    receiver = await startWebhookReceiver();
    const prefix = `o${randomBytes(4).toString('hex')}:`;
    const event_types = ['channel_occupied', 'channel_vacated', 'member_added', 'member_removed'];
    const node = (nodeId: string, batching: Record<string, unknown>) =>
      clusterNodeDir({
        prefix,
        nodeId,
        redisPort: redis.port,
        config: {
          applications: [
            { ...APP, webhooks: [{ url: receiver.url, event_types }] },
            {
              ...COUNTS,
              enable_subscription_count: true,
              subscription_count_interval_ms: 100,
              webhooks: [{ url: receiver.url, event_types: ['subscription_count'] }],
            },
          ],
          webhooks: { batching },
        },
      });
    slow = await startBin([], { cwd: node('slow', { enabled: true, window_ms: SLOW_WINDOW_MS }) });
    fast = await startBin([], { cwd: node('fast', { enabled: false }) });
    verifier = sdkFor(fast.port);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([slow?.stop(), fast?.stop()]);
    await receiver?.close();
    await redis?.stop();
  });

  /** Every event of an app received so far for a channel, each request verified with the pusher SDK. */
  const eventsOf = (channel: string, app = APP): Event[] => {
    const sdk = app === APP ? verifier : sdkFor(fast.port, app);
    return receiver.requests
      .filter((request) => request.headers['x-pusher-key'] === app.key)
      .flatMap((request) => {
        const webhook = sdk.webhook({ headers: request.headers, rawBody: request.rawBody });
        expect(webhook.isValid()).toBe(true);
        return webhook.getEvents() as Event[];
      })
      .filter((event) => event.channel === channel);
  };
  const namesOf = (channel: string) => eventsOf(channel).map((event) => event.name);

  /** Resolves once everything the slow node had gathered so far has been handled (sent, or left out). */
  let markers = 0;
  async function slowNodeSettled(app = APP): Promise<void> {
    const marker = `marker-${++markers}`;
    const client = await socket(slow.port, '', app);
    await client.subscribe(marker);
    // Its batch goes out after (or with) the earlier ones of the slow node: one lane, in queue order.
    await receiver.waitFor(() => eventsOf(marker, app).length >= 1, 60_000);
    client.ws.close();
  }

  const staleCount = async (app = APP) => {
    let total = 0;
    for (const node of [slow, fast]) {
      const text = await (await fetch(`http://127.0.0.1:${node.port}/metrics`)).text();
      const line = new RegExp(`herald_webhook_stale_events_total\\{app_id="${app.id}"\\} (\\d+)`).exec(text);
      total += Number(line?.[1] ?? 0);
    }
    return total;
  };

  it('a leave on one node and a rejoin on another within its batching window end "occupied" and "added"', async () => {
    const channel = 'presence-rejoin';
    const member = JSON.stringify({ user_id: 'ada' });
    const rest = sdkFor(fast.port);
    const details = async () => {
      const info = await (
        await rest.get({ path: `/channels/${channel}`, params: { info: 'subscription_count,user_count' } })
      ).json();
      return info as { occupied: boolean; subscription_count?: number; user_count?: number };
    };
    // Ada joins on the fast node (occupied and member_added go out at once), then on the slow one too, and
    // leaves the fast one: the slow node now holds the channel's last subscriber.
    const onFast = await socket(fast.port, '', APP);
    await onFast.subscribe(channel, member);
    const onSlow = await socket(slow.port, '', APP);
    await onSlow.subscribe(channel, member);
    await receiver.waitFor(() => eventsOf(channel).length >= 2, 60_000);
    onFast.send({ event: 'pusher:unsubscribe', data: { channel } });
    await until(async () => (await details()).subscription_count === 1);
    const staleBefore = await staleCount();

    // Ada leaves on the slow node (vacated and member_removed wait in its batch) …
    onSlow.send({ event: 'pusher:unsubscribe', data: { channel } });
    await until(async () => {
      const now = await details();
      return !now.occupied && now.user_count === 0;
    });
    // … and is back on the fast node at once, whose occupied and member_added go out straight away.
    const back = await socket(fast.port, '', APP);
    await back.subscribe(channel, member);
    await receiver.waitFor(() => eventsOf(channel).length >= 4, 60_000);
    await slowNodeSettled();

    const names = namesOf(channel);
    const occupancy = names.filter((name) => name.startsWith('channel_'));
    const membership = names.filter((name) => name.startsWith('member_'));
    expect(occupancy.at(-1)).toBe('channel_occupied');
    expect(membership.at(-1)).toBe('member_added');
    // The vacated and member_removed the slow node sent late no longer held: left out, and counted.
    expect(names).toEqual(['channel_occupied', 'member_added', 'channel_occupied', 'member_added']);
    expect(await staleCount()).toBe(staleBefore + 2);
    for (const client of [onFast, onSlow, back]) client.ws.close();
  });

  it('an occupy on one node and the vacate that follows it on another never arrive reversed', async () => {
    const channel = 'flip';
    const rest = sdkFor(fast.port);
    const count = async () => {
      const response = await rest.get({
        path: `/channels/${channel}`,
        params: { info: 'subscription_count' },
      });
      return ((await response.json()) as { subscription_count?: number }).subscription_count ?? 0;
    };
    // The slow node decides occupied (held in its batch); the last subscriber then leaves on the fast node.
    const first = await socket(slow.port, '', APP);
    await first.subscribe(channel);
    const second = await socket(fast.port, '', APP);
    await second.subscribe(channel);
    first.send({ event: 'pusher:unsubscribe', data: { channel } });
    await until(async () => (await count()) === 1);
    second.send({ event: 'pusher:unsubscribe', data: { channel } });
    await receiver.waitFor(() => eventsOf(channel).length >= 1, 60_000);
    await slowNodeSettled();

    const names = namesOf(channel);
    const vacated = names.indexOf('channel_vacated');
    expect(vacated).toBeGreaterThanOrEqual(0);
    expect(names.slice(vacated)).not.toContain('channel_occupied');
    expect(names.at(-1)).toBe('channel_vacated');
    first.ws.close();
    second.ws.close();
  });

  it('a subscription count read before a later change on another node never arrives after that change’s count', async () => {
    const channel = 'counted';
    type Counted = Event & { subscription_count?: number };
    const counts = () => (eventsOf(channel, COUNTS) as Counted[]).map((event) => event.subscription_count);
    const staleBefore = await staleCount(COUNTS);
    // The slow node's subscriber makes the count 1: the slow node reads it (its own subscriber is told 1) and holds
    // the webhook in its batch …
    const onSlow = await socket(slow.port, '', COUNTS);
    await onSlow.subscribe(channel);
    await onSlow.waitFor(
      (frame) =>
        frame.event === 'pusher_internal:subscription_count' &&
        (frame.data as { subscription_count?: number }).subscription_count === 1,
      60_000,
    );
    // … then a second subscriber on the fast node makes it 2, reported at once.
    const onFast = await socket(fast.port, '', COUNTS);
    await onFast.subscribe(channel);
    await receiver.waitFor(() => counts().includes(2), 60_000);
    await slowNodeSettled(COUNTS);

    // The slow node's 1 was overtaken by the 2 before it entered the queue: left out, and counted.
    expect(counts()).toEqual([2]);
    expect(await staleCount(COUNTS)).toBe(staleBefore + 1);
    onSlow.ws.close();
    onFast.ws.close();
  });
});
