import { describe, expect, it } from 'vitest';
import { planAwayDeliveries } from './away-plan.js';
import type { Notifiable, Notification } from './notification.js';

const ada: Notifiable = {
  type: 'User',
  id: 42,
  routeNotificationFor: (channel) => (channel === 'email' ? 'ada@example.test' : undefined),
};
const bob: Notifiable = { type: 'User', id: 'bob' };
const sentAt = new Date('2026-11-28T05:00:00Z');

function notification(extra: Partial<Notification>): Notification {
  return {
    type: 'CommentReplied',
    via: () => ['database'],
    toDatabase: () => ({ title: 't', message: 'm' }),
    ...extra,
  };
}

describe('planAwayDeliveries', () => {
  it('plans nothing for a notification without awayAfterSeconds', () => {
    const send = {
      notifiables: [ada],
      ids: ['i1'],
      notification: notification({}),
      type: 'T',
      createdAt: sentAt,
    };
    expect(planAwayDeliveries(send, ['email'])).toEqual([]);
  });

  it('makes one delivery per notifiable, due after the delay, with the routes of its channels', () => {
    const send = {
      notifiables: [ada, bob],
      ids: ['i1', 'i2'],
      notification: notification({ awayAfterSeconds: 60, digestWindowSeconds: 300 }),
      type: 'CommentReplied',
      createdAt: sentAt,
    };
    const planned = planAwayDeliveries(send, ['email', 'teamchat']);
    expect(planned).toEqual([
      {
        id: 'i1',
        type: 'CommentReplied',
        owner: { type: 'User', id: '42' },
        data: { title: 't', message: 'm' },
        channels: ['email', 'teamchat'],
        routes: { email: 'ada@example.test' },
        dueAt: new Date('2026-11-28T05:01:00Z'),
        digestWindowSeconds: 300,
      },
      expect.objectContaining({ id: 'i2', owner: { type: 'User', id: 'bob' }, routes: {} }),
    ]);
  });

  it('keeps only away channels the sender has when awayVia names others', () => {
    const send = {
      notifiables: [ada],
      ids: ['i1'],
      notification: notification({ awayAfterSeconds: 0, awayVia: () => ['fax', 'email'] }),
      type: 'T',
      createdAt: sentAt,
    };
    expect(planAwayDeliveries(send, ['email'])[0]?.channels).toEqual(['email']);
    const none = { ...send, notification: notification({ awayAfterSeconds: 0, awayVia: () => ['fax'] }) };
    expect(planAwayDeliveries(none, ['email'])).toEqual([]);
  });
});
