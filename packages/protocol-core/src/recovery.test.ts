import { describe, expect, it } from 'vitest';
import { parseClientFrame } from './client-frame.js';
import { RecoveryEvent, RecoveryField } from './recovery.js';
import { encodeChannelEvent, encodeRecoveryFailed, encodeSubscriptionSucceeded } from './server-frame.js';

const position = { serial: 42, epoch: 'a1b2c3d4.1' };

describe('encodeChannelEvent with a position', () => {
  it('adds the serial and epoch as top-level fields after the event', () => {
    const frame = encodeChannelEvent(
      { event: 'order.shipped', channel: 'orders', data: '{"id":1}' },
      position,
    );
    expect(frame).toBe(
      '{"event":"order.shipped","channel":"orders","data":"{\\"id\\":1}","herald_serial":42,"herald_epoch":"a1b2c3d4.1"}',
    );
    expect(JSON.parse(frame)).toMatchObject({
      [RecoveryField.Serial]: 42,
      [RecoveryField.Epoch]: 'a1b2c3d4.1',
    });
  });

  it('leaves the frame byte for byte as before without one', () => {
    const message = { event: 'client-typing', channel: 'presence-room', data: { at: 1 }, userId: 'u1' };
    expect(encodeChannelEvent(message)).toBe(
      '{"event":"client-typing","channel":"presence-room","data":{"at":1},"user_id":"u1"}',
    );
    expect(encodeChannelEvent(message, position)).toBe(
      '{"event":"client-typing","channel":"presence-room","data":{"at":1},"user_id":"u1","herald_serial":42,"herald_epoch":"a1b2c3d4.1"}',
    );
  });
});

describe('encodeSubscriptionSucceeded with a position', () => {
  it('tells a fresh subscriber where the channel stands', () => {
    expect(JSON.parse(encodeSubscriptionSucceeded('orders', undefined, { serial: 0, epoch: 'e.1' }))).toEqual(
      {
        event: 'pusher_internal:subscription_succeeded',
        channel: 'orders',
        data: '{}',
        herald_serial: 0,
        herald_epoch: 'e.1',
      },
    );
  });

  it('is unchanged without one', () => {
    expect(encodeSubscriptionSucceeded('orders')).toBe(
      '{"event":"pusher_internal:subscription_succeeded","channel":"orders","data":"{}"}',
    );
  });
});

describe('encodeRecoveryFailed', () => {
  it('carries the reason and first serial in data, as pusher-js hands them to channel.bind', () => {
    const frame = JSON.parse(
      encodeRecoveryFailed('orders', { reason: 'trimmed', firstSerial: 12 }, position),
    );
    expect(frame.event).toBe(RecoveryEvent.RecoveryFailed);
    expect(frame.channel).toBe('orders');
    expect(JSON.parse(frame.data)).toEqual({ reason: 'trimmed', first_serial: 12 });
    expect(frame.herald_serial).toBe(42);
  });

  it('says null when nothing is held and carries no position when history is off', () => {
    const frame = JSON.parse(encodeRecoveryFailed('orders', { reason: 'disabled', firstSerial: null }));
    expect(JSON.parse(frame.data)).toEqual({ reason: 'disabled', first_serial: null });
    expect(frame).not.toHaveProperty('herald_serial');
  });
});

describe('parseClientFrame of a subscribe with a position', () => {
  const subscribe = (data: object) => parseClientFrame(JSON.stringify({ event: 'pusher:subscribe', data }));

  it('reads herald_after and herald_epoch', () => {
    const frame = subscribe({ channel: 'orders', herald_after: 7, herald_epoch: 'e.1' });
    expect(frame).toEqual({
      ok: true,
      value: {
        type: 'subscribe',
        channel: 'orders',
        auth: undefined,
        channelData: undefined,
        after: { serial: 7, epoch: 'e.1' },
      },
    });
  });

  it('keeps a subscribe without one exactly as before', () => {
    expect(subscribe({ channel: 'orders' })).toEqual({
      ok: true,
      value: { type: 'subscribe', channel: 'orders', auth: undefined, channelData: undefined },
    });
  });

  it('takes a missing epoch as an unknown one', () => {
    const frame = subscribe({ channel: 'orders', herald_after: 3 });
    expect(frame.ok && frame.value.type === 'subscribe' && frame.value.after).toEqual({
      serial: 3,
      epoch: '',
    });
  });

  it.each([-1, 1.5, '3', null])('refuses herald_after %j and names the field', (after) => {
    const frame = subscribe({ channel: 'orders', herald_after: after });
    expect(frame).toMatchObject({
      ok: false,
      error: { reason: 'invalid_field', field: 'data.herald_after' },
    });
  });
});
