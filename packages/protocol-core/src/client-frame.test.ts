import { describe, expect, it } from 'vitest';
import { type FrameError, parseClientFrame } from './client-frame.js';

const frame = (value: unknown): string => JSON.stringify(value);

describe('parseClientFrame', () => {
  describe('accepts every frame a client may send', () => {
    it.each([
      ['pusher:ping with an empty data object', { event: 'pusher:ping', data: {} }, { type: 'ping' }],
      ['pusher:ping without data', { event: 'pusher:ping' }, { type: 'ping' }],
      ['pusher:pong', { event: 'pusher:pong', data: {} }, { type: 'pong' }],
      [
        'pusher:subscribe to a public channel',
        { event: 'pusher:subscribe', data: { channel: 'news' } },
        { type: 'subscribe', channel: 'news', auth: undefined, channelData: undefined },
      ],
      [
        'pusher:subscribe to a private channel with auth',
        { event: 'pusher:subscribe', data: { auth: 'key:abc123', channel: 'private-orders' } },
        { type: 'subscribe', channel: 'private-orders', auth: 'key:abc123', channelData: undefined },
      ],
      [
        'pusher:subscribe with null auth and channel_data, as some clients send',
        { event: 'pusher:subscribe', data: { channel: 'news', auth: null, channel_data: null } },
        { type: 'subscribe', channel: 'news', auth: undefined, channelData: undefined },
      ],
      [
        'pusher:unsubscribe',
        { event: 'pusher:unsubscribe', data: { channel: 'private-orders' } },
        { type: 'unsubscribe', channel: 'private-orders' },
      ],
      [
        'pusher:signin',
        { event: 'pusher:signin', data: { auth: 'key:abc', user_data: '{"id":"1"}' } },
        { type: 'signin', auth: 'key:abc', userData: '{"id":"1"}' },
      ],
      [
        'a client event with object data',
        { event: 'client-typing', channel: 'private-chat', data: { who: 'ann' } },
        { type: 'client-event', event: 'client-typing', channel: 'private-chat', data: { who: 'ann' } },
      ],
      [
        'a client event with string data',
        { event: 'client-typing', channel: 'presence-room', data: 'hello' },
        { type: 'client-event', event: 'client-typing', channel: 'presence-room', data: 'hello' },
      ],
      [
        'a client event with null data',
        { event: 'client-x', channel: 'private-chat', data: null },
        { type: 'client-event', event: 'client-x', channel: 'private-chat', data: null },
      ],
    ])('parses %s', (_name, input, expected) => {
      expect(parseClientFrame(frame(input))).toEqual({ ok: true, value: expected });
    });
  });

  it('keeps presence channel_data exactly as sent, because the signature covers that string', () => {
    const channelData = '{ "user_info": {"name":"Zoë \\"Z\\""},  "user_id": 7 }';
    const result = parseClientFrame(
      frame({
        event: 'pusher:subscribe',
        data: { channel: 'presence-room', auth: 'k:s', channel_data: channelData },
      }),
    );
    expect(result.ok && result.value.type === 'subscribe' && result.value.channelData).toBe(channelData);
  });

  it('keeps sign-in user_data exactly as sent', () => {
    const userData = '{"id":"42", "name":"A \\u00e9"}';
    const result = parseClientFrame(
      frame({ event: 'pusher:signin', data: { auth: 'k:s', user_data: userData } }),
    );
    expect(result.ok && result.value.type === 'signin' && result.value.userData).toBe(userData);
  });

  it('accepts subscribe data sent as a JSON-encoded string', () => {
    const result = parseClientFrame(
      frame({ event: 'pusher:subscribe', data: JSON.stringify({ channel: 'private-a', auth: 'k:s' }) }),
    );
    expect(result).toEqual({
      ok: true,
      value: { type: 'subscribe', channel: 'private-a', auth: 'k:s', channelData: undefined },
    });
  });

  it('ignores fields it does not know', () => {
    const result = parseClientFrame(
      frame({ event: 'pusher:unsubscribe', data: { channel: 'news', extra: 1 }, id: 9, channel: 'ignored' }),
    );
    expect(result).toEqual({ ok: true, value: { type: 'unsubscribe', channel: 'news' } });
  });

  const malformed: Array<[string, string, FrameError['reason'], string | undefined]> = [
    ['an empty frame', '', 'not_json', undefined],
    ['plain text', 'hello', 'not_json', undefined],
    ['an unterminated object', '{', 'not_json', undefined],
    ['a truncated frame', '{"event":"pusher:ping"', 'not_json', undefined],
    ['single-quoted JSON', "{'event':'pusher:ping'}", 'not_json', undefined],
    ['a frame with trailing garbage', '{"event":"pusher:ping"} x', 'not_json', undefined],
    ['a frame starting with a byte order mark', '\uFEFF{"event":"pusher:ping"}', 'not_json', undefined],
    ['a NUL byte', '\u0000', 'not_json', undefined],
    ['JSON null', 'null', 'not_an_object', undefined],
    ['a JSON number', '42', 'not_an_object', undefined],
    ['a JSON string', '"pusher:ping"', 'not_an_object', undefined],
    ['a JSON boolean', 'true', 'not_an_object', undefined],
    ['an empty array', '[]', 'not_an_object', undefined],
    ['an array holding a frame', '[{"event":"pusher:ping"}]', 'not_an_object', undefined],
    ['an object without event', '{}', 'missing_event', 'event'],
    ['a null event', '{"event":null}', 'missing_event', 'event'],
    ['a numeric event', '{"event":42}', 'missing_event', 'event'],
    ['an empty event', '{"event":""}', 'missing_event', 'event'],
    ['an array event', '{"event":["pusher:ping"]}', 'missing_event', 'event'],
    ['an object event', '{"event":{"name":"pusher:ping"}}', 'missing_event', 'event'],
    ['subscribe without data', '{"event":"pusher:subscribe"}', 'invalid_field', 'data'],
    ['subscribe with null data', '{"event":"pusher:subscribe","data":null}', 'invalid_field', 'data'],
    ['subscribe with array data', '{"event":"pusher:subscribe","data":[]}', 'invalid_field', 'data'],
    ['subscribe with numeric data', '{"event":"pusher:subscribe","data":1}', 'invalid_field', 'data'],
    [
      'subscribe with non-JSON string data',
      '{"event":"pusher:subscribe","data":"news"}',
      'invalid_field',
      'data',
    ],
    [
      'subscribe with string data holding an array',
      '{"event":"pusher:subscribe","data":"[1]"}',
      'invalid_field',
      'data',
    ],
    ['subscribe without channel', '{"event":"pusher:subscribe","data":{}}', 'invalid_field', 'data.channel'],
    [
      'subscribe with an empty channel',
      '{"event":"pusher:subscribe","data":{"channel":""}}',
      'invalid_field',
      'data.channel',
    ],
    [
      'subscribe with a numeric channel',
      '{"event":"pusher:subscribe","data":{"channel":42}}',
      'invalid_field',
      'data.channel',
    ],
    [
      'subscribe with an array channel',
      '{"event":"pusher:subscribe","data":{"channel":["a"]}}',
      'invalid_field',
      'data.channel',
    ],
    [
      'subscribe with a numeric auth',
      '{"event":"pusher:subscribe","data":{"channel":"private-a","auth":123}}',
      'invalid_field',
      'data.auth',
    ],
    [
      'subscribe with channel_data as an object instead of a string',
      '{"event":"pusher:subscribe","data":{"channel":"presence-a","auth":"k:s","channel_data":{"user_id":"1"}}}',
      'invalid_field',
      'data.channel_data',
    ],
    ['unsubscribe without data', '{"event":"pusher:unsubscribe"}', 'invalid_field', 'data'],
    [
      'unsubscribe with a null channel',
      '{"event":"pusher:unsubscribe","data":{"channel":null}}',
      'invalid_field',
      'data.channel',
    ],
    ['signin without data', '{"event":"pusher:signin"}', 'invalid_field', 'data'],
    [
      'signin without auth',
      '{"event":"pusher:signin","data":{"user_data":"{}"}}',
      'invalid_field',
      'data.auth',
    ],
    [
      'signin with an empty auth',
      '{"event":"pusher:signin","data":{"auth":"","user_data":"{}"}}',
      'invalid_field',
      'data.auth',
    ],
    [
      'signin without user_data',
      '{"event":"pusher:signin","data":{"auth":"k:s"}}',
      'invalid_field',
      'data.user_data',
    ],
    [
      'signin with user_data as an object',
      '{"event":"pusher:signin","data":{"auth":"k:s","user_data":{"id":"1"}}}',
      'invalid_field',
      'data.user_data',
    ],
    ['a client event without channel', '{"event":"client-typing","data":{}}', 'invalid_field', 'channel'],
    [
      'a client event with an empty channel',
      '{"event":"client-typing","channel":"","data":{}}',
      'invalid_field',
      'channel',
    ],
    [
      'a client event with a numeric channel',
      '{"event":"client-typing","channel":7,"data":{}}',
      'invalid_field',
      'channel',
    ],
    [
      'a client event without data',
      '{"event":"client-typing","channel":"private-a"}',
      'invalid_field',
      'data',
    ],
    [
      'the bare client- prefix',
      '{"event":"client-","channel":"private-a","data":{}}',
      'unknown_event',
      'event',
    ],
    [
      'a client event in another case',
      '{"event":"Client-x","channel":"private-a","data":{}}',
      'unknown_event',
      'event',
    ],
    [
      'an app event name',
      '{"event":"order.shipped","channel":"orders","data":"{}"}',
      'unknown_event',
      'event',
    ],
    [
      'a server-only event',
      '{"event":"pusher:connection_established","data":"{}"}',
      'unknown_event',
      'event',
    ],
    [
      'an internal event',
      '{"event":"pusher_internal:subscription_succeeded","data":"{}"}',
      'unknown_event',
      'event',
    ],
    ['a pusher event in upper case', '{"event":"PUSHER:PING"}', 'unknown_event', 'event'],
  ];

  it.each(malformed)('refuses %s with a typed error', (_name, text, reason, field) => {
    const result = parseClientFrame(text);
    expect(result).toEqual({
      ok: false,
      error: { reason, message: expect.any(String), ...(field && { field }) },
    });
  });

  it('never throws on any prefix of valid frames', () => {
    const samples = [
      frame({
        event: 'pusher:subscribe',
        data: { channel: 'presence-a', auth: 'k:s', channel_data: '{"user_id":1}' },
      }),
      frame({ event: 'pusher:signin', data: { auth: 'k:s', user_data: '{"id":"1"}' } }),
      frame({ event: 'client-x', channel: 'private-a', data: { nested: [1, { deep: '"\\' }] } }),
    ];
    for (const sample of samples) {
      for (let end = 0; end <= sample.length; end++) {
        const result = parseClientFrame(sample.slice(0, end));
        expect(typeof result.ok).toBe('boolean');
      }
    }
  });

  it('cuts a very long unknown event name out of the message', () => {
    const result = parseClientFrame(frame({ event: `x${'a'.repeat(10_000)}` }));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message.length).toBeLessThan(200);
  });
});
