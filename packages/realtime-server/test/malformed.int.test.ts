import { ErrorCode } from '@herald/protocol-core';
import { afterAll, beforeAll, describe, expect, it, test } from 'vitest';
import { APP, errorCode, publishMarker, RawClient, startServer, titled } from './support.js';

type Started = Awaited<ReturnType<typeof startServer>>;

const subscribe = (data: unknown) => JSON.stringify({ event: 'pusher:subscribe', data });

/** Kinds of bad frame; every one must get `pusher:error` 4302 and leave the socket open and served. */
const badFrames: Array<{ kind: string; frame: string | Buffer; binary?: boolean }> = [
  { kind: 'text that is not JSON', frame: 'hello server' },
  { kind: 'truncated JSON', frame: '{"event":"pusher:subscribe","data":{"chan' },
  { kind: 'a JSON array', frame: '[{"event":"pusher:ping"}]' },
  { kind: 'a JSON number', frame: '42' },
  { kind: 'JSON null', frame: 'null' },
  { kind: 'JSON true', frame: 'true' },
  { kind: 'a JSON string', frame: '"pusher:ping"' },
  { kind: 'NaN, which is not JSON', frame: 'NaN' },
  { kind: 'single-quoted pseudo-JSON', frame: "{'event':'pusher:ping'}" },
  { kind: 'two objects back to back', frame: '{"event":"pusher:ping"}{"event":"pusher:ping"}' },
  { kind: 'JSON behind a byte-order mark', frame: '\uFEFF{"event":"pusher:ping"}' },
  { kind: 'an empty object', frame: '{}' },
  { kind: 'an object without an event', frame: '{"channel":"news","data":{}}' },
  { kind: 'a numeric event', frame: '{"event":42}' },
  { kind: 'an object as the event', frame: '{"event":{"name":"pusher:ping"}}' },
  { kind: 'an array as the event', frame: '{"event":["pusher:ping"]}' },
  { kind: 'an empty event', frame: '{"event":""}' },
  { kind: 'an unknown pusher: event', frame: '{"event":"pusher:teleport","data":{}}' },
  {
    kind: 'a server-only pusher_internal: event',
    frame: '{"event":"pusher_internal:subscription_succeeded","channel":"news","data":"{}"}',
  },
  {
    kind: 'an app event name without the client- prefix',
    frame: '{"event":"typing","channel":"private-a","data":{}}',
  },
  {
    kind: 'the bare client- prefix as the event',
    frame: '{"event":"client-","channel":"private-a","data":{}}',
  },
  { kind: 'subscribe without data', frame: '{"event":"pusher:subscribe"}' },
  { kind: 'subscribe with null data', frame: subscribe(null) },
  { kind: 'subscribe with numeric data', frame: subscribe(7) },
  { kind: 'subscribe with array data', frame: subscribe(['news']) },
  { kind: 'subscribe with data as a string that is not JSON', frame: subscribe('{channel:news') },
  { kind: 'subscribe with data as a JSON string of an array', frame: subscribe('["news"]') },
  { kind: 'subscribe without a channel', frame: subscribe({ auth: 'k:s' }) },
  { kind: 'subscribe with an empty channel', frame: subscribe({ channel: '' }) },
  { kind: 'subscribe with a numeric channel', frame: subscribe({ channel: 5 }) },
  { kind: 'subscribe with an object channel', frame: subscribe({ channel: { name: 'news' } }) },
  { kind: 'subscribe with a null channel', frame: subscribe({ channel: null }) },
  { kind: 'subscribe with a numeric auth', frame: subscribe({ channel: 'private-a', auth: 123 }) },
  {
    kind: 'subscribe with channel_data as an object',
    frame: subscribe({ channel: 'presence-a', auth: 'k:s', channel_data: { user_id: '1' } }),
  },
  { kind: 'unsubscribe without data', frame: '{"event":"pusher:unsubscribe"}' },
  { kind: 'unsubscribe without a channel', frame: '{"event":"pusher:unsubscribe","data":{}}' },
  {
    kind: 'signin without auth',
    frame: '{"event":"pusher:signin","data":{"user_data":"{\\"id\\":\\"1\\"}"}}',
  },
  { kind: 'signin without user_data', frame: '{"event":"pusher:signin","data":{"auth":"app-key:00"}}' },
  {
    kind: 'signin with user_data as an object',
    frame: '{"event":"pusher:signin","data":{"auth":"app-key:00","user_data":{"id":"1"}}}',
  },
  { kind: 'a client event without a channel', frame: '{"event":"client-typing","data":{}}' },
  { kind: 'a client event with a numeric channel', frame: '{"event":"client-typing","channel":9,"data":{}}' },
  { kind: 'a client event without data', frame: '{"event":"client-typing","channel":"private-a"}' },
  {
    kind: 'a deeply nested object as the event, within the size limit',
    frame: `{"event":${'{"a":'.repeat(1500)}1${'}'.repeat(1500)}}`,
  },
  {
    kind: 'a large array as the channel, within the size limit',
    frame: subscribe({ channel: Array.from({ length: 2000 }, (_, i) => i) }),
  },
  { kind: 'deeply nested arrays', frame: `${'['.repeat(4000)}${']'.repeat(4000)}` },
  { kind: 'raw control characters inside a string', frame: '{"event":"pusher:ping\u0000\u0007\u001b"}' },
  { kind: 'escaped control characters in the event name', frame: '{"event":"pusher:ping\\u0000"}' },
  { kind: 'a 0-byte frame', frame: '' },
  { kind: 'whitespace only', frame: ' \n\t\r ' },
  {
    kind: 'invalid UTF-8 bytes in a binary frame',
    frame: Buffer.from([0x7b, 0xff, 0xfe, 0xc3, 0x28, 0x7d]),
    binary: true,
  },
  {
    kind: 'a binary frame of garbage',
    frame: Buffer.from([0x00, 0x01, 0x02, 0x80, 0xff, 0x1b, 0x7f]),
    binary: true,
  },
  { kind: '__proto__ holding the event', frame: '{"__proto__":{"event":"pusher:ping"}}' },
  {
    kind: '__proto__ holding the subscribe data',
    frame: '{"event":"pusher:subscribe","data":{"__proto__":{"channel":"news"}}}',
  },
  {
    kind: 'constructor.prototype holding the channel',
    frame: subscribe({ constructor: { prototype: { channel: 'news' } } }),
  },
];

describe('malformed frames', () => {
  let started: Started;
  /** Sends every bad frame; it stays subscribed to `news` throughout. */
  let sender: RawClient;
  /** Another socket on `news` that must keep receiving events while the bad frames arrive. */
  let bystander: RawClient;

  beforeAll(async () => {
    started = await startServer();
    sender = (await RawClient.established(started.url())).client;
    bystander = (await RawClient.established(started.url())).client;
    await sender.subscribe('news');
    await bystander.subscribe('news');
  });
  afterAll(async () => {
    sender.close();
    bystander.close();
    await started.stop();
  });

  it(`has at least 30 kinds of bad frame (${badFrames.length})`, () => {
    expect(new Set(badFrames.map(({ kind }) => kind)).size).toBe(badFrames.length);
    expect(badFrames.length).toBeGreaterThanOrEqual(30);
  });

  test.each(
    titled(badFrames, ({ kind }) => `answers ${kind} with pusher:error 4302 while others keep receiving`),
  )('%s', async (_, { frame, binary }) => {
    const before = sender.frames.length;
    sender.sendRaw(frame, binary);
    expect(errorCode(await sender.next('pusher:error'))).toBe(ErrorCode.GenericError);

    const marker = await publishMarker(started.server, 'news', [sender, bystander]);
    expect(sender.frames.slice(before).map(({ event }) => event)).toEqual(['pusher:error', marker]);
    expect(await started.server.connectionCount(APP.id)).toBe(2);
  });

  it('leaves Object.prototype untouched by the __proto__ and constructor frames', () => {
    const probe: Record<string, unknown> = {};
    expect(probe.event).toBeUndefined();
    expect(probe.channel).toBeUndefined();
  });

  it('still accepts new connections and subscriptions after every bad frame', async () => {
    const late = (await RawClient.established(started.url())).client;
    try {
      expect((await late.subscribe('news')).event).toBe('pusher_internal:subscription_succeeded');
      await publishMarker(started.server, 'news', [late, sender, bystander]);
      expect((await started.server.channel(APP.id, 'news')).subscriptionCount).toBe(3);
    } finally {
      late.close();
    }
  });

  // RFC 6455 §8.1: an endpoint that receives invalid UTF-8 in a text frame must fail the connection, and
  // uWebSockets.js does so before the server sees the frame; no pusher:error can be sent. Only that socket goes.
  it('loses only the sending socket to invalid UTF-8 in a text frame', async () => {
    const broken = (await RawClient.established(started.url())).client;
    broken.sendRaw(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
    expect((await broken.closed).code).not.toBe(1000);
    expect(broken.frames.some(({ event }) => event === 'pusher:error')).toBe(false);
    await publishMarker(started.server, 'news', [sender, bystander]);
    expect(await bystander.isServed()).toBe(true);
  });
});
