import { describe, expect, it } from 'vitest';
import { webhookEvent } from './events.js';
import { subjectOf } from './subject.js';

const idOf = (event: Parameters<typeof subjectOf>[0]) => subjectOf(event)?.id;

describe('subjectOf', () => {
  it('puts the occupied and vacated events of one channel under one subject, and says which state each claims', () => {
    expect(idOf(webhookEvent.channelOccupied('orders'))).toBe(idOf(webhookEvent.channelVacated('orders')));
    expect(subjectOf(webhookEvent.channelOccupied('orders'))).toMatchObject({
      kind: 'occupancy',
      channel: 'orders',
      occupied: true,
    });
    expect(subjectOf(webhookEvent.channelVacated('orders'))).toMatchObject({ occupied: false });
  });

  it('keeps the occupancy of different channels apart', () => {
    expect(idOf(webhookEvent.channelOccupied('orders'))).not.toBe(
      idOf(webhookEvent.channelOccupied('invoices')),
    );
  });

  it("gives each user's membership of a channel its own subject", () => {
    const added = webhookEvent.memberAdded('presence-room', 'u1');
    expect(idOf(added)).toBe(idOf(webhookEvent.memberRemoved('presence-room', 'u1')));
    expect(idOf(added)).not.toBe(idOf(webhookEvent.memberAdded('presence-room', 'u2')));
    expect(idOf(added)).not.toBe(idOf(webhookEvent.memberAdded('presence-hall', 'u1')));
    expect(subjectOf(webhookEvent.memberRemoved('presence-room', 'u1'))).toMatchObject({
      kind: 'membership',
      channel: 'presence-room',
      userId: 'u1',
      member: false,
    });
  });

  it("keeps a channel's subscription count apart from its occupancy", () => {
    const count = webhookEvent.subscriptionCount('orders', 3);
    expect(subjectOf(count)).toMatchObject({ kind: 'subscription_count', channel: 'orders', count: 3 });
    expect(idOf(count)).toBe(idOf(webhookEvent.subscriptionCount('orders', 4)));
    expect(idOf(count)).not.toBe(idOf(webhookEvent.channelOccupied('orders')));
  });

  it('gives no subject to events that record a moment, which nothing can overtake', () => {
    expect(subjectOf(webhookEvent.cacheMiss('cache-prices'))).toBeUndefined();
    expect(
      subjectOf(
        webhookEvent.clientEvent({
          channel: 'private-chat',
          event: 'client-typing',
          data: {},
          socketId: '1.2',
        }),
      ),
    ).toBeUndefined();
  });
});
