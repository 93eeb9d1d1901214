import { describe, expect, it } from 'vitest';
import { createBroadcastChannel } from './broadcast-channel.js';
import type { NotificationBroadcaster } from './broadcaster.js';
import type { Delivery } from './channel.js';
import type { Notifiable, Notification } from './notification.js';

function recorder() {
  const published: Array<{ channels: readonly string[]; event: string; data: unknown }> = [];
  const broadcaster: NotificationBroadcaster = {
    publish: async (channels, event, data) => {
      published.push({ channels, event, data });
    },
    publishChange: async () => {},
  };
  return { published, channel: createBroadcastChannel({ broadcaster }) };
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
});
