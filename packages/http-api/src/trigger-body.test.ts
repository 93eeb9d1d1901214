import { describe, expect, it } from 'vitest';
import { eventLimitsOf } from './api-app.js';
import { parseBatchBody, parseTriggerBody } from './trigger-body.js';

const limits = eventLimitsOf({ id: '1', key: 'k', secret: 's', enabled: true, allowedOrigins: [] });
const event = { name: 'order.created', data: '{"id":1}' };

describe('parseTriggerBody', () => {
  it('keeps data exactly as sent and folds channel into channels', () => {
    const data = '{ "spaced" :  "\\u00e9" }';
    const result = parseTriggerBody({ ...event, data, channel: 'orders', socket_id: '12.34' }, limits);
    expect(result.ok && result.value).toMatchObject({ channels: ['orders'], data, socketId: '12.34' });
  });

  it('takes a null socket_id or info as not given', () => {
    const result = parseTriggerBody({ ...event, channel: 'a', socket_id: null, info: null }, limits);
    expect(result.ok && result.value).toMatchObject({ socketId: undefined, info: new Set() });
  });

  it('names the field at fault', () => {
    expect(parseTriggerBody({ ...event, data: { id: 1 }, channel: 'a' }, limits)).toMatchObject({
      ok: false,
      error: { field: 'data', kind: 'invalid' },
    });
    expect(parseTriggerBody({ ...event, channels: ['a', 'b c'] }, limits)).toMatchObject({
      ok: false,
      error: { field: 'channels[1]' },
    });
    expect(parseTriggerBody({ ...event, channel: 'a', socket_id: 'abc' }, limits)).toMatchObject({
      ok: false,
      error: { field: 'socket_id' },
    });
    expect(parseTriggerBody(event, limits)).toMatchObject({ ok: false, error: { field: 'channels' } });
  });

  it('refuses both channels and channel at once', () => {
    expect(parseTriggerBody({ ...event, channels: ['a'], channel: 'b' }, limits).ok).toBe(false);
  });

  it('allows 100 channels and refuses 101', () => {
    const channels = Array.from({ length: 101 }, (_, i) => `c${i}`);
    expect(parseTriggerBody({ ...event, channels: channels.slice(0, 100) }, limits).ok).toBe(true);
    expect(parseTriggerBody({ ...event, channels }, limits)).toMatchObject({
      ok: false,
      error: { field: 'channels', message: 'channels: must name at most 100 channels' },
    });
  });

  it('measures data in UTF-8 bytes against the payload limit', () => {
    const atLimit = 'é'.repeat(5120); // 10240 bytes
    expect(parseTriggerBody({ ...event, data: atLimit, channel: 'a' }, limits).ok).toBe(true);
    expect(parseTriggerBody({ ...event, data: `${atLimit}x`, channel: 'a' }, limits)).toMatchObject({
      ok: false,
      error: { field: 'data', kind: 'payload_too_large' },
    });
  });

  it('refuses unknown info attributes', () => {
    expect(parseTriggerBody({ ...event, channel: 'a', info: 'user_count,colour' }, limits)).toMatchObject({
      ok: false,
      error: { field: 'info' },
    });
  });
});

describe('parseBatchBody', () => {
  it('names the event and field at fault', () => {
    const batch = [
      { ...event, channel: 'a' },
      { ...event, name: 'n'.repeat(201), channel: 'a' },
    ];
    expect(parseBatchBody({ batch }, limits)).toMatchObject({ ok: false, error: { field: 'batch[1].name' } });
    expect(parseBatchBody({ batch: [{ ...event }] }, limits)).toMatchObject({
      ok: false,
      error: { field: 'batch[0].channel' },
    });
  });

  it('refuses an empty batch and one over the batch size', () => {
    expect(parseBatchBody({ batch: [] }, limits).ok).toBe(false);
    const eleven = Array.from({ length: 11 }, () => ({ ...event, channel: 'a' }));
    expect(parseBatchBody({ batch: eleven.slice(0, 10) }, limits).ok).toBe(true);
    expect(parseBatchBody({ batch: eleven }, limits)).toMatchObject({ ok: false, error: { field: 'batch' } });
  });
});
