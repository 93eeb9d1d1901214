import { describe, expect, it } from 'vitest';
import { createBroadcastChannel } from './broadcast-channel.js';
import type { BroadcastEvent, NotificationBroadcaster } from './broadcaster.js';
import type { Delivery } from './channel.js';
import type { Notifiable, Notification } from './notification.js';

function recorder() {
  const published: Array<{ channels: readonly string[]; event: string; data: unknown }> = [];
  const batches: BroadcastEvent[][] = [];
  const broadcaster: NotificationBroadcaster = {
    publish: async (channels, event, data) => {
      published.push({ channels, event, data });
    },
    publishBatch: async (events) => {
      if (events.some((e) => e.channel === 'private-User.fail')) throw new Error('batch refused');
      batches.push([...events]);
    },
    publishChange: async () => {},
  };
  return { published, batches, channel: createBroadcastChannel({ broadcaster }) };
}

const createdAt = new Date('2026-02-03T04:05:06.000Z');
const delivery = (notifiable: Notifiable, notification: Notification, anonymous = false): Delivery => ({
  id: '6f1c2a9e-0000-4000-8000-000000000001',
  notifiable,
  notification,
  type: 'OrderShipped',
  createdAt,
  anonymous,
});

describe('the broadcast channel', () => {
  it('publishes toBroadcast() data shaped as the stored record on the notifiable’s private channel', async () => {
    const { published, channel } = recorder();
    await channel.send(
      delivery(
        { type: 'User', id: 9 },
        { via: () => ['broadcast'], toBroadcast: () => ({ title: 'Shipped', message: 'On its way' }) },
      ),
    );
    expect(published).toEqual([
      {
        channels: ['private-User.9'],
        event: 'notification.created',
        data: {
          id: '6f1c2a9e-0000-4000-8000-000000000001',
          type: 'OrderShipped',
          notifiable_type: 'User',
          notifiable_id: '9',
          data: { title: 'Shipped', message: 'On its way' },
          read_at: null,
          created_at: '2026-02-03T04:05:06.000Z',
          updated_at: '2026-02-03T04:05:06.000Z',
        },
      },
    ]);
  });

  it('falls back to toDatabase(), and follows broadcastAs() and routeNotificationFor()', async () => {
    const { published, channel } = recorder();
    const notifiable: Notifiable = {
      type: 'User',
      id: 9,
      routeNotificationFor: (name) =>
        name === 'broadcast' ? ['private-Team.3', 'private-User.9'] : undefined,
    };
    await channel.send(
      delivery(notifiable, {
        via: () => ['broadcast'],
        toDatabase: () => ({ title: 't', message: 'm' }),
        broadcastAs: () => 'order.shipped',
      }),
    );
    expect(published[0]).toMatchObject({
      channels: ['private-Team.3', 'private-User.9'],
      event: 'order.shipped',
      data: { data: { title: 't', message: 'm' } },
    });
  });

  it('refuses a notification with no builder, and an on-demand send without a channel route', async () => {
    const { published, channel } = recorder();
    await expect(
      channel.send(delivery({ type: 'User', id: 1 }, { via: () => ['broadcast'] })),
    ).rejects.toMatchObject({
      code: 'missing_builder',
      channel: 'broadcast',
    });
    const anonymous: Notifiable = {
      type: 'AnonymousNotifiable',
      id: '',
      routeNotificationFor: () => undefined,
    };
    await expect(
      channel.send(delivery(anonymous, { via: () => ['broadcast'], toBroadcast: () => ({}) }, true)),
    ).rejects.toMatchObject({ code: 'invalid_data' });
    expect(published).toEqual([]);
  });

  it('sends many deliveries in batches of ten, failing only the deliveries of a refused batch', async () => {
    const { batches, published, channel } = recorder();
    const notification: Notification = {
      via: () => ['broadcast'],
      toDatabase: () => ({ title: 't', message: 'm' }),
    };
    const ids = [...Array.from({ length: 24 }, (_, i) => i), 'fail'];
    const routedTwice = { type: 'User', id: 'two', routeNotificationFor: () => ['a', 'b'] };
    const outcomes = await channel.sendMany?.([
      ...ids.map((id) => delivery({ type: 'User', id }, notification)),
      delivery(routedTwice, notification),
    ]);
    expect(batches.map((batch) => batch.length)).toEqual([10, 10]);
    expect(batches[0]?.[0]).toMatchObject({
      channel: 'private-User.0',
      event: 'notification.created',
      data: { notifiable_id: '0', data: { title: 't', message: 'm' } },
    });
    expect(published).toEqual([expect.objectContaining({ channels: ['a', 'b'] })]);
    expect(outcomes?.slice(0, 20).every((outcome) => outcome === undefined)).toBe(true);
    expect(outcomes?.slice(20, 25).map((outcome) => outcome?.message)).toEqual(
      Array(5).fill('batch refused'),
    );
    expect(outcomes?.[25]).toBeUndefined();
  });
});
