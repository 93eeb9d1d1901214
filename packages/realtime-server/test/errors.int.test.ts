import { ErrorCode, signChannelAuth, signUserAuth } from '@herald/protocol-core';
import { fence, until } from '@herald/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it, test } from 'vitest';
import type { RealtimeApp } from '../src/index.js';
import { APP, errorCode, type Frame, publishMarker, RawClient, startServer, titled } from './support.js';

type Started = Awaited<ReturnType<typeof startServer>>;
type Overrides = Parameters<typeof startServer>[0];

const tracked: RawClient[] = [];
const running: Started[] = [];

async function serve(overrides: Overrides = {}): Promise<Started> {
  const started = await startServer(overrides);
  running.push(started);
  return started;
}

async function connect(started: Started, headers: Record<string, string> = {}): Promise<RawClient> {
  const { client } = await RawClient.established(started.url(), headers);
  tracked.push(client);
  return client;
}

/** Resolves with the `pusher:error` the socket got and the code it was then closed with. */
async function closedWithError(client: RawClient) {
  const [error, closed] = await Promise.all([client.next('pusher:error'), client.closed]);
  return { code: errorCode(error), closeCode: closed.code };
}

/** Opens a socket the server is expected to refuse at once: its error code, close code, and whether it got in. */
async function refusal(url: string, headers: Record<string, string> = {}) {
  const client = await RawClient.connect(url, headers);
  tracked.push(client);
  return {
    ...(await closedWithError(client)),
    established: client.frames.some((frame) => frame.event === 'pusher:connection_established'),
  };
}

afterEach(async () => {
  for (const client of tracked.splice(0)) client.close();
  for (const started of running.splice(0)) await started.stop();
});

describe('the upgrade', () => {
  const restricted = { allowedOrigins: ['https://app.example.com', '*.example.org'] };

  const refusals: Array<{
    refusal: string;
    code: number;
    app?: Partial<RealtimeApp>;
    key?: string;
    query?: string;
    origin?: string;
  }> = [
    { refusal: 'an unknown app key', key: 'no-such-key', code: ErrorCode.AppNotFound },
    { refusal: 'a disabled app', app: { enabled: false }, code: ErrorCode.AppDisabled },
    {
      refusal: 'an Origin not in allowed_origins',
      app: restricted,
      origin: 'https://evil.test',
      code: ErrorCode.Unauthorized,
    },
    {
      refusal: 'an Origin that only starts like an allowed one',
      app: restricted,
      origin: 'https://app.example.com.evil.test',
      code: ErrorCode.Unauthorized,
    },
    {
      refusal: 'evil-example.org against the pattern *.example.org',
      app: restricted,
      origin: 'https://evil-example.org',
      code: ErrorCode.Unauthorized,
    },
    {
      refusal: 'the bare domain against the pattern *.example.org',
      app: restricted,
      origin: 'https://example.org',
      code: ErrorCode.Unauthorized,
    },
    {
      refusal: 'a missing Origin when origins are restricted',
      app: restricted,
      code: ErrorCode.Unauthorized,
    },
    { refusal: 'protocol=5', query: 'protocol=5&client=js', code: ErrorCode.UnsupportedProtocol },
  ];

  test.each(
    titled(
      refusals,
      ({ refusal, code }) => `answers ${refusal} with pusher:error ${code} and closes with ${code}`,
    ),
  )('%s', async (_, { app, key, query, origin, code }) => {
    const started = await serve({ app });
    const result = await refusal(started.url(key, query), origin ? { origin } : {});
    expect(result).toEqual({ code, closeCode: code, established: false });
    expect(await started.server.connectionCount(APP.id)).toBe(0);
  });

  const allowed = [
    { origin: 'https://app.example.com', allowed: ['https://app.example.com'] },
    { origin: 'https://eu.example.org', allowed: ['*.example.org'] },
    { origin: 'https://deep.eu.example.org', allowed: ['https://*.example.org'] },
    { origin: 'https://anything.test', allowed: ['*'] },
  ];

  test.each(
    titled(allowed, ({ origin, allowed }) => `accepts Origin ${origin} when allowed_origins is ${allowed}`),
  )('%s', async (_, { origin, allowed }) => {
    const started = await serve({ app: { allowedOrigins: allowed } });
    const client = await connect(started, { origin });
    expect(client.socketId).toMatch(/^\d+\.\d+$/);
    expect(await client.isServed()).toBe(true);
  });

  it('refuses a connection over maxConnections with 4004 and keeps the existing ones up', async () => {
    const started = await serve({ app: { maxConnections: 2 } });
    const first = await connect(started);
    const second = await connect(started);

    expect(await refusal(started.url())).toEqual({
      code: ErrorCode.OverConnectionQuota,
      closeCode: ErrorCode.OverConnectionQuota,
      established: false,
    });
    expect(await first.isServed()).toBe(true);
    expect(await second.isServed()).toBe(true);
    expect(await started.server.connectionCount(APP.id)).toBe(2);

    first.close();
    await first.closed;
    for (let i = 0; i < 50 && (await started.server.connectionCount(APP.id)) > 1; i++)
      await second.roundTrip();
    expect(await (await connect(started)).isServed()).toBe(true);
  });
});

describe('keeping a connection alive', () => {
  it('answers pusher:ping with pusher:pong', async () => {
    const client = await connect(await serve());
    client.send({ event: 'pusher:ping', data: {} });
    expect(await client.next('pusher:pong')).toMatchObject({ event: 'pusher:pong', data: {} });
  });

  it('answers a WebSocket ping frame with a pong frame carrying the same payload', async () => {
    const client = await connect(await serve());
    const pong = new Promise<string>((resolve) => client.ws.once('pong', (data) => resolve(data.toString())));
    client.ws.ping('are-you-there');
    expect(await pong).toBe('are-you-there');
  });
});

// The sweep runs once a second here, so each test takes two to four seconds; they run side by side, each with
// its own server and clients (the file's afterEach must not close another test's sockets).
describe('the activity timeout', () => {
  const timing = { app: { activityTimeout: 1, pingInterval: 1 } };

  it.concurrent('pings a silent client and closes it with 4201 when it does not answer', async ({
    expect,
  }) => {
    const started = await startServer(timing);
    try {
      const { client } = await RawClient.established(started.url());
      const established = client.frames[0] as Frame;
      expect(established.data).toMatchObject({ activity_timeout: 1 });
      expect(await client.next('pusher:ping', 3000)).toMatchObject({ event: 'pusher:ping' });
      const { code, closeCode } = await closedWithError(client);
      expect({ code, closeCode }).toEqual({
        code: ErrorCode.PongNotReceived,
        closeCode: ErrorCode.PongNotReceived,
      });
    } finally {
      await started.stop();
    }
  });

  it.concurrent('keeps a client that answers each pusher:ping with pusher:pong', async ({ expect }) => {
    const started = await startServer(timing);
    try {
      const { client } = await RawClient.established(started.url());
      client.ws.on('message', (raw) => {
        if (raw.toString().includes('"pusher:ping"')) client.send({ event: 'pusher:pong', data: {} });
      });
      await client.next('pusher:ping', 3000);
      // Not answering would close the socket about a second after the first ping; a second ping instead shows
      // the pong reset the clock.
      await client.next('pusher:ping', 3000);
      expect(client.frames.some((frame) => frame.event === 'pusher:error')).toBe(false);
      expect(await client.isServed()).toBe(true);
      client.close();
    } finally {
      await started.stop();
    }
  });

  it.concurrent('counts WebSocket ping frames as activity: a client that only pings is never sent pusher:ping', async ({
    expect,
  }) => {
    const started = await startServer(timing);
    try {
      const { client } = await RawClient.established(started.url());
      let pongs = 0;
      client.ws.on('pong', () => pongs++);
      // Pings every 200 ms, for longer than the activity timeout (1 s) and the sweep's ping (once a second).
      const pinger = setInterval(() => client.ws.ping(), 200);
      try {
        await until(() => pongs >= 15, { what: '15 pong frames', limitMs: 60_000 });
      } finally {
        clearInterval(pinger);
      }
      // A pusher:ping answered by pusher:pong is the marker: a sweep ping sent before it has arrived by then.
      await fence({
        received: () => client.frames,
        unwanted: (frame) => frame.event === 'pusher:ping' || frame.event === 'pusher:error',
        sendMarker: () => client.send({ event: 'pusher:ping', data: {} }),
        isMarker: (frame) => frame.event === 'pusher:pong',
        what: 'a sweep ping or an error',
      });
      expect(await client.isServed()).toBe(true);
      client.close();
    } finally {
      await started.stop();
    }
  });
});

describe('refusing a subscription', () => {
  let started: Started;
  beforeAll(async () => {
    started = await startServer({
      app: { maxChannelNameLength: 40, maxPresenceMemberSizeInKb: 1, maxPresenceMembersPerChannel: 1 },
    });
  });
  afterAll(() => started.stop());

  const sign = (socketId: string, channel: string, channelData?: string) =>
    signChannelAuth(APP, { socketId, channel, channelData });
  const member = (id: string, info: unknown = {}) => JSON.stringify({ user_id: id, user_info: info });

  const unauthorized = { type: 'AuthError', status: 401 };
  const forbidden = { type: 'AuthError', status: 403 };
  const invalid = { type: 'InvalidChannel', status: 400 };
  const tooLarge = { type: 'LimitReached', status: 400 };

  const refusals: Array<{
    refusal: string;
    data: (socketId: string) => { channel: string; auth?: string; channel_data?: string };
    answer: { type: string; status: number };
  }> = [
    {
      refusal: 'a bad private signature',
      data: () => ({ channel: 'private-a', auth: `${APP.key}:${'0'.repeat(64)}` }),
      answer: unauthorized,
    },
    {
      refusal: 'a private signature made over another socket id',
      data: () => ({ channel: 'private-a', auth: sign('1.1', 'private-a') }),
      answer: unauthorized,
    },
    {
      refusal: 'a private signature made for another channel',
      data: (socketId) => ({ channel: 'private-a', auth: sign(socketId, 'private-b') }),
      answer: unauthorized,
    },
    {
      refusal: 'a private signature made with another app key',
      data: (socketId) => ({
        channel: 'private-a',
        auth: signChannelAuth({ key: 'other-key', secret: APP.secret }, { socketId, channel: 'private-a' }),
      }),
      answer: unauthorized,
    },
    {
      refusal: 'a private channel without auth',
      data: () => ({ channel: 'private-a' }),
      answer: unauthorized,
    },
    {
      refusal: 'an encrypted channel signed with another secret',
      data: (socketId) => ({
        channel: 'private-encrypted-vault',
        auth: signChannelAuth(
          { key: APP.key, secret: 'not-the-secret' },
          { socketId, channel: 'private-encrypted-vault' },
        ),
      }),
      answer: unauthorized,
    },
    {
      refusal: 'presence channel_data other than the signed one',
      data: (socketId) => ({
        channel: 'presence-room',
        auth: sign(socketId, 'presence-room', member('1')),
        channel_data: member('admin'),
      }),
      answer: unauthorized,
    },
    {
      refusal: 'presence without channel_data',
      data: (socketId) => ({ channel: 'presence-room', auth: sign(socketId, 'presence-room') }),
      answer: unauthorized,
    },
    {
      refusal: 'signed presence channel_data without a user_id',
      data: (socketId) => ({
        channel: 'presence-room',
        auth: sign(socketId, 'presence-room', '{"user_info":{}}'),
        channel_data: '{"user_info":{}}',
      }),
      answer: invalid,
    },
    {
      refusal: 'user_info over maxPresenceMemberSizeInKb',
      data: (socketId) => {
        const big = member('1', { bio: 'x'.repeat(1100) });
        return { channel: 'presence-room', auth: sign(socketId, 'presence-room', big), channel_data: big };
      },
      answer: tooLarge,
    },
    {
      refusal: 'invalid characters in the channel name',
      data: () => ({ channel: 'news room!' }),
      answer: invalid,
    },
    {
      refusal: 'a channel name over maxChannelNameLength',
      data: () => ({ channel: 'n'.repeat(41) }),
      answer: invalid,
    },
    {
      refusal: '#server-to-user-x without sign-in',
      data: () => ({ channel: '#server-to-user-x' }),
      answer: forbidden,
    },
  ];

  test.each(
    titled(
      refusals,
      ({ refusal, answer }) =>
        `answers ${refusal} with subscription_error ${answer.type} ${answer.status} and keeps the socket`,
    ),
  )('%s', async (_, { data, answer }) => {
    const client = await connect(started);
    const subscription = data(client.socketId);
    expect(await client.subscribeWith(subscription)).toMatchObject({
      event: 'pusher:subscription_error',
      channel: subscription.channel,
      data: answer,
    });
    expect(await client.isServed()).toBe(true);
    expect((await started.server.channel(APP.id, subscription.channel)).subscriptionCount).toBe(0);
  });

  it('refuses a second user over maxPresenceMembersPerChannel but accepts the same user on another socket', async () => {
    const first = await connect(started);
    expect((await first.subscribe('presence-full', { user_id: '1' })).event).toBe(
      'pusher_internal:subscription_succeeded',
    );

    const second = await connect(started);
    expect(await second.subscribe('presence-full', { user_id: '2' })).toMatchObject({
      event: 'pusher:subscription_error',
      data: { type: 'LimitReached', status: 403 },
    });
    expect(await second.isServed()).toBe(true);

    const secondTab = await connect(started);
    expect(await secondTab.subscribe('presence-full', { user_id: '1' })).toMatchObject({
      event: 'pusher_internal:subscription_succeeded',
      data: { presence: { ids: ['1'], count: 1 } },
    });
    expect(await started.server.presenceUsers(APP.id, 'presence-full')).toEqual(['1']);
  });

  it('refuses #server-to-user-x to a socket signed in as another user', async () => {
    const client = await connect(started);
    expect((await client.signin({ id: 'y' })).event).toBe('pusher:signin_success');
    expect(await client.subscribe('#server-to-user-x')).toMatchObject({
      event: 'pusher:subscription_error',
      data: forbidden,
    });
    expect((await client.subscribe('#server-to-user-y')).event).toBe(
      'pusher_internal:subscription_succeeded',
    );
  });
});

describe('client events', () => {
  const refusals: Array<{
    refusal: string;
    channel: string;
    app?: Partial<RealtimeApp>;
    senderSubscribes?: boolean;
    event?: string;
    data?: unknown;
  }> = [
    { refusal: 'on a public channel', channel: 'news' },
    { refusal: 'on a private-encrypted- channel', channel: 'private-encrypted-vault' },
    {
      refusal: 'on a channel the sender has not subscribed to',
      channel: 'private-chat',
      senderSubscribes: false,
    },
    {
      refusal: 'when the app has enableClientMessages false',
      channel: 'private-chat',
      app: { enableClientMessages: false },
    },
    {
      refusal: "when acceptClientEventsFrom is 'none'",
      channel: 'private-chat',
      app: { acceptClientEventsFrom: 'none' },
    },
    {
      refusal: "on a channel the sender has not subscribed to when acceptClientEventsFrom is 'members'",
      channel: 'private-chat',
      app: { acceptClientEventsFrom: 'members' },
      senderSubscribes: false,
    },
    {
      refusal: "on a channel the sender has not subscribed to when acceptClientEventsFrom is 'all'",
      channel: 'private-chat',
      app: { acceptClientEventsFrom: 'all' },
      senderSubscribes: false,
    },
    {
      refusal: 'with an event name over maxEventNameLength',
      channel: 'private-chat',
      app: { maxEventNameLength: 20 },
      event: `client-${'x'.repeat(14)}`,
    },
    {
      refusal: 'with data over maxEventPayloadInKb',
      channel: 'private-chat',
      app: { maxEventPayloadInKb: 1 },
      data: { text: 'x'.repeat(1100) },
    },
    {
      refusal: 'with data over maxEventPayloadInKb in bytes though not in characters',
      channel: 'private-chat',
      app: { maxEventPayloadInKb: 1 },
      data: { text: 'é'.repeat(600) },
    },
  ];

  test.each(
    titled(refusals, ({ refusal }) => `refuses a client event ${refusal} with 4301 and keeps the socket`),
  )(
    '%s',
    async (_, {
      channel,
      app,
      senderSubscribes = true,
      event = 'client-typing',
      data = { by: 'sender' },
    }) => {
      const started = await serve({ app });
      const sender = await connect(started);
      const receiver = await connect(started);
      await receiver.subscribe(channel);
      if (senderSubscribes) await sender.subscribe(channel);

      sender.send({ event, channel, data });
      expect(errorCode(await sender.next('pusher:error'))).toBe(ErrorCode.ClientEventRejected);
      expect(await sender.isServed()).toBe(true);
      await publishMarker(started.server, channel, [receiver]);
      expect(receiver.frames.some((frame) => frame.event === event)).toBe(false);
    },
  );

  const senders: Array<{
    sender: string;
    channel: string;
    app?: Partial<RealtimeApp>;
    signin?: boolean;
    userId?: string;
  }> = [
    { sender: 'a private subscriber', channel: 'private-chat' },
    {
      sender: "a private subscriber without a user identity when acceptClientEventsFrom is 'members'",
      channel: 'private-chat',
      app: { acceptClientEventsFrom: 'members' },
    },
    {
      sender: "a signed-in private subscriber when acceptClientEventsFrom is 'members'",
      channel: 'private-chat',
      app: { acceptClientEventsFrom: 'members' },
      signin: true,
    },
    {
      sender: "a presence member when acceptClientEventsFrom is 'members'",
      channel: 'presence-chat',
      app: { acceptClientEventsFrom: 'members' },
      userId: '7',
    },
  ];

  test.each(
    titled(
      senders,
      ({ sender }) => `relays a client event from ${sender} to the others, never back to the sender`,
    ),
  )('%s', async (_, { channel, app, signin, userId }) => {
    const started = await serve({ app });
    const sender = await connect(started);
    const receiver = await connect(started);
    if (signin) await sender.signin({ id: 'u-1' });
    const presence = channel.startsWith('presence-');
    await sender.subscribe(channel, presence ? { user_id: userId ?? 'u-1' } : undefined);
    await receiver.subscribe(channel, presence ? { user_id: 'watcher' } : undefined);

    sender.send({ event: 'client-typing', channel, data: { by: 'sender' } });
    const relayed = await receiver.next('client-typing');
    expect(relayed).toMatchObject({ channel, data: { by: 'sender' } });
    expect(relayed.user_id).toBe(presence ? userId : undefined);

    await publishMarker(started.server, channel, [sender]);
    expect(
      sender.frames.some((frame) => frame.event === 'client-typing' || frame.event === 'pusher:error'),
    ).toBe(false);
  });
});

describe('pusher:signin', () => {
  const userData = '{"id":"1"}';

  const refusals: Array<{
    refusal: string;
    data: (socketId: string) => { auth: string; user_data: string };
  }> = [
    {
      refusal: 'a bad signature',
      data: () => ({ auth: `${APP.key}:${'0'.repeat(64)}`, user_data: userData }),
    },
    {
      refusal: 'a signature made over another socket id',
      data: () => ({ auth: signUserAuth(APP, '1.1', userData), user_data: userData }),
    },
    {
      refusal: 'user_data other than the signed one',
      data: (socketId) => ({ auth: signUserAuth(APP, socketId, userData), user_data: '{"id":"admin"}' }),
    },
    {
      refusal: 'signed user_data lacking an id',
      data: (socketId) => ({
        auth: signUserAuth(APP, socketId, '{"name":"Ada"}'),
        user_data: '{"name":"Ada"}',
      }),
    },
    {
      refusal: 'signed user_data whose id is a number',
      data: (socketId) => ({ auth: signUserAuth(APP, socketId, '{"id":5}'), user_data: '{"id":5}' }),
    },
  ];

  test.each(
    titled(refusals, ({ refusal }) => `refuses ${refusal} with pusher:error 4009 and closes with 4009`),
  )('%s', async (_, { data }) => {
    const started = await serve();
    const client = await connect(started);
    client.send({ event: 'pusher:signin', data: data(client.socketId) });
    expect(await closedWithError(client)).toEqual({
      code: ErrorCode.Unauthorized,
      closeCode: ErrorCode.Unauthorized,
    });
    expect(client.frames.some((frame) => frame.event === 'pusher:signin_success')).toBe(false);
  });
});

describe('max_message_size', () => {
  let started: Started;
  beforeAll(async () => {
    started = await startServer({ app: { maxMessageSize: 1000 } });
  });
  afterAll(() => started.stop());

  /** A valid pusher:ping padded to exactly this many bytes. */
  const pingOf = (bytes: number) => {
    const bare = '{"event":"pusher:ping","data":{"pad":""}}';
    return bare.replace('""', `"${'p'.repeat(bytes - bare.length)}"`);
  };

  it('serves a frame of exactly maxMessageSize bytes', async () => {
    const client = await connect(started);
    client.sendRaw(pingOf(1000));
    expect((await client.next('pusher:pong')).event).toBe('pusher:pong');
  });

  it('answers a frame one byte over maxMessageSize with pusher:error 4009 and closes with 4009', async () => {
    const client = await connect(started);
    const bystander = await connect(started);
    client.sendRaw(pingOf(1001));
    expect(await closedWithError(client)).toEqual({
      code: ErrorCode.Unauthorized,
      closeCode: ErrorCode.Unauthorized,
    });
    expect(client.frames.some((frame) => frame.event === 'pusher:pong')).toBe(false);
    expect(await bystander.isServed()).toBe(true);
  });

  // uWebSockets.js drops frames over its own ceiling (4 × the largest max_message_size, at least 40 000 bytes)
  // before the server sees them, so no pusher:error can be sent: the socket is simply cut.
  it('drops a frame past the uWebSockets.js ceiling without disturbing other sockets', async () => {
    const client = await connect(started);
    const bystander = await connect(started);
    client.sendRaw('x'.repeat(50_000));
    expect((await client.closed).code).not.toBe(1000);
    expect(await bystander.isServed()).toBe(true);
  });
});

describe('the server side of a connection', () => {
  it('closes every socket with pusher:error 4200 and close code 4200 on server.close()', async () => {
    const started = await serve();
    const idle = await connect(started);
    const subscribed = await connect(started);
    await subscribed.subscribe('news');

    await started.server.close();
    const expected = { code: ErrorCode.Reconnect, closeCode: ErrorCode.Reconnect };
    expect(await closedWithError(idle)).toEqual(expected);
    expect(await closedWithError(subscribed)).toEqual(expected);
    await expect(RawClient.connect(started.url())).rejects.toThrow();
  });

  it("closes a user's signed-in and presence sockets with 4009 on terminateUser and leaves the others open", async () => {
    const started = await serve();
    const signedIn = await connect(started);
    await signedIn.signin({ id: 'u1' });
    const present = await connect(started);
    await present.subscribe('presence-room', { user_id: 'u1' });
    const otherUser = await connect(started);
    await otherUser.signin({ id: 'u2' });
    const otherMember = await connect(started);
    await otherMember.subscribe('presence-room', { user_id: 'u2' });
    const anonymous = await connect(started);
    await anonymous.subscribe('news');

    expect(started.server.terminateUser(APP.id, 'u1')).toBe(2);
    const terminated = { code: ErrorCode.Unauthorized, closeCode: ErrorCode.Unauthorized };
    expect(await closedWithError(signedIn)).toEqual(terminated);
    expect(await closedWithError(present)).toEqual(terminated);
    expect(await otherMember.next('pusher_internal:member_removed')).toMatchObject({
      channel: 'presence-room',
      data: { user_id: 'u1' },
    });
    for (const client of [otherUser, otherMember, anonymous]) expect(await client.isServed()).toBe(true);
    expect(await started.server.presenceUsers(APP.id, 'presence-room')).toEqual(['u2']);
  });

  it('stops delivering a channel’s events after pusher:unsubscribe', async () => {
    const started = await serve();
    const client = await connect(started);
    await client.subscribe('news');
    await client.subscribe('other');
    started.server.publish(APP.id, { channels: ['news'], event: 'before', data: '{}' });
    await client.next('before');

    client.send({ event: 'pusher:unsubscribe', data: { channel: 'news' } });
    await client.roundTrip();
    started.server.publish(APP.id, { channels: ['news'], event: 'after', data: '{}' });
    await publishMarker(started.server, 'other', [client]);
    expect(client.frames.some((frame) => frame.event === 'after')).toBe(false);
    expect((await started.server.channel(APP.id, 'news')).occupied).toBe(false);
  });

  it('sends member_removed to the others when a member’s socket closes', async () => {
    const started = await serve();
    const staying = await connect(started);
    await staying.subscribe('presence-room', { user_id: '1' });
    const leaving = await connect(started);
    await leaving.subscribe('presence-room', { user_id: '2' });
    expect(await staying.next('pusher_internal:member_added')).toMatchObject({ data: { user_id: '2' } });

    leaving.close();
    expect(await staying.next('pusher_internal:member_removed')).toMatchObject({
      channel: 'presence-room',
      data: { user_id: '2' },
    });
    expect(await started.server.presenceUsers(APP.id, 'presence-room')).toEqual(['1']);
  });
});
