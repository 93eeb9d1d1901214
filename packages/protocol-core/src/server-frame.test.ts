import { describe, expect, it } from 'vitest';
import {
  encodeCacheMiss,
  encodeChannelEvent,
  encodeConnectionEstablished,
  encodeError,
  encodeMemberAdded,
  encodeMemberRemoved,
  encodePing,
  encodePong,
  encodeSigninSuccess,
  encodeSubscriptionCount,
  encodeSubscriptionError,
  encodeSubscriptionSucceeded,
} from './server-frame.js';

interface DecodedMessage {
  event: string;
  channel?: string;
  data?: unknown;
  user_id?: string;
}

/** Decodes a frame as pusher-js does (`Protocol.decodeMessage`): parse it, then parse `data` when it is a string. */
function decodeAsPusherJs(frame: string): DecodedMessage {
  const message = JSON.parse(frame) as DecodedMessage;
  if (typeof message.data === 'string') {
    try {
      message.data = JSON.parse(message.data);
    } catch {
      // pusher-js keeps a data string that is not JSON as it is.
    }
  }
  return message;
}

/** The raw `data` member of a frame, before any second decoding. */
const rawData = (frame: string): unknown => (JSON.parse(frame) as DecodedMessage).data;

describe('encodeConnectionEstablished', () => {
  it('sends the socket id and activity timeout as a JSON string in data', () => {
    expect(encodeConnectionEstablished('123.456', 120)).toBe(
      '{"event":"pusher:connection_established","data":"{\\"socket_id\\":\\"123.456\\",\\"activity_timeout\\":120}"}',
    );
  });

  it('gives pusher-js the activity_timeout its handshake requires', () => {
    const message = decodeAsPusherJs(encodeConnectionEstablished('1.2', 30));
    expect(message).toEqual({
      event: 'pusher:connection_established',
      data: { socket_id: '1.2', activity_timeout: 30 },
    });
  });
});

describe('encodeError', () => {
  it('sends code and message as a data object', () => {
    expect(encodeError(4001, 'App key abc not in this cluster')).toBe(
      '{"event":"pusher:error","data":{"code":4001,"message":"App key abc not in this cluster"}}',
    );
  });

  it('sends a null code', () => {
    expect(encodeError(null, 'Invalid signature')).toBe(
      '{"event":"pusher:error","data":{"code":null,"message":"Invalid signature"}}',
    );
  });

  it('escapes quotes, backslashes and newlines in the message', () => {
    const message = 'bad "frame" \\ here\nand 🚀';
    expect(decodeAsPusherJs(encodeError(4302, message)).data).toEqual({ code: 4302, message });
  });
});

describe('encodePing and encodePong', () => {
  it('sends pusher:ping with an empty data object', () => {
    expect(encodePing()).toBe('{"event":"pusher:ping","data":{}}');
  });

  it('sends pusher:pong with an empty data object', () => {
    expect(encodePong()).toBe('{"event":"pusher:pong","data":{}}');
  });
});

describe('encodeSubscriptionSucceeded', () => {
  it('sends "{}" as a string for a channel without presence', () => {
    expect(encodeSubscriptionSucceeded('private-orders')).toBe(
      '{"event":"pusher_internal:subscription_succeeded","channel":"private-orders","data":"{}"}',
    );
  });

  it('sends the presence snapshot as a JSON string, as the protocol and non-JS clients expect', () => {
    const frame = encodeSubscriptionSucceeded('presence-room', {
      ids: ['1', '2'],
      hash: { '1': { name: 'Ann' }, '2': null },
      count: 2,
    });
    expect(typeof rawData(frame)).toBe('string');
    expect(JSON.parse(frame)).toEqual({
      event: 'pusher_internal:subscription_succeeded',
      channel: 'presence-room',
      data: '{"presence":{"ids":["1","2"],"hash":{"1":{"name":"Ann"},"2":null},"count":2}}',
    });
  });

  it('gives pusher-js the ids, hash and count its presence channel reads', () => {
    const message = decodeAsPusherJs(
      encodeSubscriptionSucceeded('presence-room', {
        ids: ['u"1'],
        hash: { 'u"1': { emoji: '🎉' } },
        count: 1,
      }),
    );
    expect(message.data).toEqual({ presence: { ids: ['u"1'], hash: { 'u"1': { emoji: '🎉' } }, count: 1 } });
  });
});

describe('encodeSubscriptionError', () => {
  it('sends the channel and a type, error and status object', () => {
    expect(
      encodeSubscriptionError('private-a', { type: 'AuthError', error: 'Invalid signature', status: 401 }),
    ).toBe(
      '{"event":"pusher:subscription_error","channel":"private-a","data":{"type":"AuthError","error":"Invalid signature","status":401}}',
    );
  });
});

describe('encodeMemberAdded', () => {
  it('sends user_id and user_info as a JSON string', () => {
    expect(encodeMemberAdded('presence-room', '7', { name: 'Ann' })).toBe(
      '{"event":"pusher_internal:member_added","channel":"presence-room","data":"{\\"user_id\\":\\"7\\",\\"user_info\\":{\\"name\\":\\"Ann\\"}}"}',
    );
  });

  it('leaves user_info out when the member has none', () => {
    expect(decodeAsPusherJs(encodeMemberAdded('presence-room', '7', undefined)).data).toEqual({
      user_id: '7',
    });
  });

  it('carries unicode and quotes in user_info intact', () => {
    const info = { name: 'Zoë "the" \\ 日本 👩‍💻' };
    const message = decodeAsPusherJs(encodeMemberAdded('presence-room', '7', info));
    expect(typeof rawData(encodeMemberAdded('presence-room', '7', info))).toBe('string');
    expect(message).toEqual({
      event: 'pusher_internal:member_added',
      channel: 'presence-room',
      data: { user_id: '7', user_info: info },
    });
  });
});

describe('encodeMemberRemoved', () => {
  it('sends user_id as a JSON string', () => {
    expect(encodeMemberRemoved('presence-room', '7')).toBe(
      '{"event":"pusher_internal:member_removed","channel":"presence-room","data":"{\\"user_id\\":\\"7\\"}"}',
    );
  });
});

describe('encodeCacheMiss', () => {
  it('sends the channel without data', () => {
    expect(encodeCacheMiss('cache-prices')).toBe('{"event":"pusher:cache_miss","channel":"cache-prices"}');
  });
});

describe('encodeSigninSuccess', () => {
  it('sends user_data exactly as signed', () => {
    const userData = '{"id":"42", "name":"Zoë"}';
    expect(encodeSigninSuccess(userData)).toBe(
      '{"event":"pusher:signin_success","data":{"user_data":"{\\"id\\":\\"42\\", \\"name\\":\\"Zoë\\"}"}}',
    );
  });

  it('lets pusher-js read a non-empty string id from user_data', () => {
    const message = decodeAsPusherJs(encodeSigninSuccess('{"id":"42"}')) as { data: { user_data: string } };
    expect((JSON.parse(message.data.user_data) as { id: string }).id).toBe('42');
  });
});

describe('encodeSubscriptionCount', () => {
  it('sends subscription_count as a JSON string', () => {
    expect(encodeSubscriptionCount('news', 3)).toBe(
      '{"event":"pusher_internal:subscription_count","channel":"news","data":"{\\"subscription_count\\":3}"}',
    );
  });
});

describe('encodeChannelEvent', () => {
  it('sends an app event with data as the string that was triggered', () => {
    expect(encodeChannelEvent({ event: 'order.shipped', channel: 'orders', data: '{"id":42}' })).toBe(
      '{"event":"order.shipped","channel":"orders","data":"{\\"id\\":42}"}',
    );
  });

  it.each([
    ['compact JSON', '{"id":42}'],
    ['JSON with spacing pusher-js must not see rewritten', ' { "id" : 42 , "list": [ 1,2 ] } '],
    ['plain text', 'hello world'],
    ['an empty string', ''],
    ['quotes and backslashes', 'say "hi" \\ C:\\path\\ \\"escaped\\"'],
    ['unicode', 'Zoë, 日本語, Ελληνικά, עברית'],
    ['emoji and joiners', '🚀 👩‍💻 🇫🇷 👍🏽'],
    [
      'nested JSON strings',
      JSON.stringify({ inner: JSON.stringify({ deeper: JSON.stringify({ x: '"' }) }) }),
    ],
    ['control characters', 'tab\tnewline\ncarriage\rnul\u0000bell\u0007'],
    ['line and paragraph separators', 'a\u2028b\u2029c'],
    ['HTML', '</script><script>alert(1)</script>'],
    ['a lone surrogate', 'broken \uD83D half'],
    ['a 10 KB payload', JSON.stringify({ blob: 'x'.repeat(10_230) })],
  ])('forwards %s byte for byte', (_name, data) => {
    const frame = encodeChannelEvent({ event: 'app-event', channel: 'orders', data });
    const received = rawData(frame);
    expect(received).toBe(data);
    expect(Buffer.from(received as string).equals(Buffer.from(data))).toBe(true);
  });

  it('lets pusher-js parse JSON data into an object', () => {
    const message = decodeAsPusherJs(
      encodeChannelEvent({ event: 'e', channel: 'c', data: '{"text":"Zoë \\"q\\" 🚀","n":[1,{"m":null}]}' }),
    );
    expect(message.data).toEqual({ text: 'Zoë "q" 🚀', n: [1, { m: null }] });
  });

  it('serialises object data of a client event as JSON', () => {
    expect(
      encodeChannelEvent({ event: 'client-typing', channel: 'private-chat', data: { who: 'ann' } }),
    ).toBe('{"event":"client-typing","channel":"private-chat","data":{"who":"ann"}}');
  });

  it('adds user_id for client events on presence channels', () => {
    expect(
      encodeChannelEvent({ event: 'client-typing', channel: 'presence-room', data: { a: 1 }, userId: '7' }),
    ).toBe('{"event":"client-typing","channel":"presence-room","data":{"a":1},"user_id":"7"}');
  });

  it('leaves data out when there is none', () => {
    expect(encodeChannelEvent({ event: 'e', channel: 'c', data: undefined })).toBe(
      '{"event":"e","channel":"c"}',
    );
  });

  it('escapes event and channel names', () => {
    const message = decodeAsPusherJs(encodeChannelEvent({ event: 'a"b\\c', channel: 'ch', data: 'x' }));
    expect(message.event).toBe('a"b\\c');
  });
});

describe('every encoder', () => {
  it.each([
    ['connection_established', encodeConnectionEstablished('1.2', 120)],
    ['error', encodeError(4009, 'x')],
    ['ping', encodePing()],
    ['pong', encodePong()],
    ['subscription_succeeded', encodeSubscriptionSucceeded('c')],
    [
      'presence subscription_succeeded',
      encodeSubscriptionSucceeded('presence-c', { ids: [], hash: {}, count: 0 }),
    ],
    ['subscription_error', encodeSubscriptionError('c', { type: 'LimitReached', error: 'x', status: 403 })],
    ['member_added', encodeMemberAdded('presence-c', '1', { a: 1 })],
    ['member_removed', encodeMemberRemoved('presence-c', '1')],
    ['cache_miss', encodeCacheMiss('cache-c')],
    ['signin_success', encodeSigninSuccess('{"id":"1"}')],
    ['subscription_count', encodeSubscriptionCount('c', 1)],
    ['channel event', encodeChannelEvent({ event: 'e', channel: 'c', data: '"' })],
  ])('produces one JSON object with a string event for %s', (_name, frame) => {
    const parsed = JSON.parse(frame) as unknown;
    expect(parsed).toEqual(expect.objectContaining({ event: expect.any(String) }));
  });
});
