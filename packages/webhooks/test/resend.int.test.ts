import { until } from '@herald/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createWebhookDispatcher,
  type WebhookAttemptReport,
  type WebhookDispatcher,
  webhookEvent,
} from '../src/index.js';
import { startWebhookReceiver } from '../src/testing.js';
import { APP_ID, acceptedEvents, appWith } from './support.js';

// A real HTTP receiver on loopback that fails until told otherwise; accepted requests are checked with the
// official `pusher` SDK's webhook helper.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('recent deliveries and send again', () => {
  it('lists a given-up batch as failed and sends it again, signed, once the receiver is back', async () => {
    const hook = await startWebhookReceiver();
    cleanups.push(() => hook.close());
    hook.answer = () => 503;
    const reports: WebhookAttemptReport[] = [];
    const app = appWith([{ url: hook.url, event_types: ['channel_occupied'] }]);
    const sender: WebhookDispatcher = createWebhookDispatcher({
      apps: () => app,
      pollMs: 20,
      retry: { baseMs: 10, maxMs: 20, maxElapsedMs: 1500 },
      batching: { enabled: false },
      keepRecent: 10,
      onAttempt: (report) => reports.push(report),
    });
    cleanups.push(() => sender.close({ drainMs: 0 }));

    sender.emit(APP_ID, webhookEvent.channelOccupied('orders'));
    await until(() => sender.recent(APP_ID)[0]?.state === 'failed', 'the expected state');
    const failed = sender.recent(APP_ID)[0];
    expect(failed).toMatchObject({ status: 503, names: ['channel_occupied'], events: 1 });
    expect(failed?.attempts).toBeGreaterThan(1);
    expect(reports.some((report) => report.outcome === 'gave_up' && report.status === 503)).toBe(true);
    expect(await sender.backlog(APP_ID)).toBe(0);
    expect(acceptedEvents(hook.requests)).toEqual([]);

    hook.answer = () => 200;
    expect(await sender.resend(APP_ID, failed?.id ?? '')).toBe('queued');
    await until(() => acceptedEvents(hook.requests).length === 1, 'the expected state');
    expect(acceptedEvents(hook.requests)[0]).toMatchObject({ name: 'channel_occupied', channel: 'orders' });
    await until(() => sender.recent(APP_ID)[0]?.state === 'delivered', 'the expected state');
    expect(sender.recent(APP_ID)[0]?.resendOf).toBe(failed?.id);
    // A delivered request is not sent again.
    expect(await sender.resend(APP_ID, sender.recent(APP_ID)[0]?.id ?? '')).toBe('not_found');
  });
});
