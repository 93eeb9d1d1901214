import { describe, expect, it } from 'vitest';
import type { Delivery, NotificationChannel } from './channel.js';
import { isNotificationError, NotificationError } from './errors.js';
import type { Notifiable, Notification } from './notification.js';
import { createNotifier } from './notifier.js';

function recordingChannel(fail?: (delivery: Delivery) => boolean) {
  const seen: Delivery[] = [];
  const channel: NotificationChannel = {
    async send(delivery) {
      if (fail?.(delivery)) throw new Error(`refused ${delivery.notifiable.id}`);
      seen.push(delivery);
    },
  };
  return { seen, channel };
}

class InvoicePaid implements Notification {
  constructor(private readonly channels: string[]) {}
  via() {
    return this.channels;
  }
  toDatabase() {
    return { title: 'Invoice paid', message: 'Invoice #12 was paid' };
  }
}

const alice: Notifiable = { type: 'User', id: 1 };
const bob: Notifiable = { type: 'User', id: 2 };

describe('createNotifier', () => {
  it('delivers to every notifiable through every channel via() names, one id per notifiable', async () => {
    const a = recordingChannel();
    const b = recordingChannel();
    const notifier = createNotifier({ channels: { a: a.channel, b: b.channel } });
    const report = await notifier.send([alice, bob], new InvoicePaid(['a', 'b']));
    expect(report).toMatchObject({ ok: true, delivered: { a: 2, b: 2 }, failures: [] });
    expect(report.ids).toHaveLength(2);
    expect(new Set(report.ids).size).toBe(2);
    expect(a.seen.map((d) => d.id)).toEqual(report.ids);
    expect(b.seen.map((d) => d.id).sort()).toEqual([...report.ids].sort());
    expect(a.seen[0]?.type).toBe('InvoicePaid');
  });

  it('throws a clear error for an unknown channel before sending anything', async () => {
    const a = recordingChannel();
    const notifier = createNotifier({ channels: { a: a.channel } });
    const sending = notifier.send(alice, new InvoicePaid(['a', 'sms']));
    await expect(sending).rejects.toThrow(/no channel named "sms" is registered \(registered: a\)/);
    await sending.catch((error) => {
      expect(isNotificationError(error) && error.code).toBe('unknown_channel');
    });
    expect(a.seen).toHaveLength(0);
  });

  it('keeps going when one channel fails and reports every failure together', async () => {
    const a = recordingChannel((d) => d.notifiable.id === 1);
    const b = recordingChannel(() => true);
    const c = recordingChannel();
    const notifier = createNotifier({ channels: { a: a.channel, b: b.channel, c: c.channel } });
    const report = await notifier.send([alice, bob], new InvoicePaid(['a', 'b', 'c']));
    expect(report.ok).toBe(false);
    expect(report.delivered).toEqual({ a: 1, c: 2 });
    expect(report.failures.map((f) => [f.channel, f.notifiable.id])).toEqual([
      ['a', 1],
      ['b', 1],
      ['b', 2],
    ]);
    expect(report.failures[0]?.error).toBeInstanceOf(NotificationError);
    expect(report.failures[0]?.error.code).toBe('send_failed');
    expect(report.failures[0]?.error.message).toBe('channel "a" failed: refused 1');
  });

  it('uses a batch-capable channel once for all notifiables', async () => {
    const batches: number[] = [];
    const channel: NotificationChannel = {
      send: async () => {
        throw new Error('should not be called');
      },
      sendMany: async (deliveries) => {
        batches.push(deliveries.length);
        return deliveries.map((d) => (d.notifiable.id === 2 ? new Error('bad row') : undefined));
      },
    };
    const notifier = createNotifier({ channels: { db: channel } });
    const report = await notifier.send([alice, bob, { type: 'User', id: 3 }], new InvoicePaid(['db']));
    expect(batches).toEqual([3]);
    expect(report.delivered).toEqual({ db: 2 });
    expect(report.failures.map((f) => f.notifiable.id)).toEqual([2]);
  });

  it('notifiable().notify() sends to that notifiable', async () => {
    const a = recordingChannel();
    const notifier = createNotifier({ channels: { a: a.channel } });
    const user = notifier.notifiable({ type: 'User', id: 7, name: 'Ada' });
    const report = await user.notify(new InvoicePaid(['a']));
    expect(report.ok).toBe(true);
    expect(a.seen[0]?.notifiable).toMatchObject({ type: 'User', id: 7, name: 'Ada' });
  });

  it('route().notify() sends on demand, only through the routed channels, with the route readable', async () => {
    const chat = recordingChannel();
    const other = recordingChannel();
    const notifier = createNotifier({ channels: { teamchat: chat.channel, other: other.channel } });
    const report = await notifier.route('teamchat', '#alerts').notify(new InvoicePaid(['teamchat', 'other']));
    expect(report.delivered).toEqual({ teamchat: 1 });
    expect(other.seen).toHaveLength(0);
    const delivery = chat.seen[0] as Delivery;
    expect(delivery.anonymous).toBe(true);
    expect(delivery.type).toBe('InvoicePaid');
    expect(delivery.notifiable.routeNotificationFor?.('teamchat', delivery.notification)).toBe('#alerts');
  });
});
