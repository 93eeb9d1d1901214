import { sleep } from '@herald/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { errorCode, RawClient, startServer } from './support.js';

type Started = Awaited<ReturnType<typeof startServer>>;

describe('per-connection rate limits', () => {
  let started: Started | undefined;
  afterEach(async () => {
    await started?.stop();
    started = undefined;
  });

  async function pair(app: Parameters<typeof startServer>[0]) {
    started = await startServer(app);
    const sender = await RawClient.connect(started.url());
    const receiver = await RawClient.connect(started.url());
    await sender.next('pusher:connection_established');
    await receiver.next('pusher:connection_established');
    return { sender, receiver };
  }

  it('refuses client events over maxClientEventsPerSecond with 4301 and keeps the socket open', async () => {
    const { sender, receiver } = await pair({ app: { maxClientEventsPerSecond: 3 } });
    await sender.subscribe('private-chat');
    await receiver.subscribe('private-chat');
    for (let i = 0; i < 5; i++) sender.send({ event: 'client-typing', channel: 'private-chat', data: { i } });
    const refusal = await sender.next('pusher:error');
    expect(errorCode(refusal)).toBe(4301);
    await sender.roundTrip();
    await receiver.roundTrip();
    const delivered = receiver.frames.filter((frame) => frame.event === 'client-typing');
    expect(delivered.map((frame) => (frame.data as { i: number }).i)).toEqual([0, 1, 2]);
    expect(await sender.isServed()).toBe(true);
  });

  it('counts every inbound frame against maxMessagesPerSecond', async () => {
    const { sender } = await pair({ app: { maxMessagesPerSecond: 4 } });
    for (let i = 0; i < 6; i++) sender.send({ event: 'pusher:ping', data: {} });
    const refusal = await sender.next('pusher:error');
    expect(errorCode(refusal)).toBe(4301);
    expect(sender.frames.filter((frame) => frame.event === 'pusher:pong')).toHaveLength(4);
    expect(sender.ws.readyState).toBe(sender.ws.OPEN);
  });

  it('closes the socket with 4009 after the 4301 when terminateOnMessageLimit is on', async () => {
    const { sender, receiver } = await pair({
      app: { maxMessagesPerSecond: 2, terminateOnMessageLimit: true },
    });
    for (let i = 0; i < 4; i++) sender.send({ event: 'pusher:ping', data: {} });
    const closed = await sender.closed;
    expect(closed.code).toBe(4009);
    const codes = sender.frames.filter((frame) => frame.event === 'pusher:error').map(errorCode);
    expect(codes[0]).toBe(4301);
    expect(await receiver.isServed()).toBe(true);
  });

  it('keeps frames in order while limits are on', async () => {
    const { sender, receiver } = await pair({
      app: { maxMessagesPerSecond: 100, maxClientEventsPerSecond: 10 },
    });
    await receiver.subscribe('private-order');
    // Subscribe and send at once: the client event must be handled after the subscription.
    sender.subscribe('private-order').catch(() => undefined);
    sender.send({ event: 'client-ping', channel: 'private-order', data: { n: 1 } });
    const relayed = await receiver.next('client-ping');
    expect(relayed.data).toEqual({ n: 1 });
    expect(sender.frames.some((frame) => frame.event === 'pusher:error')).toBe(false);
  });

  it('lets a socket send again once the second has passed', async () => {
    const { sender } = await pair({ app: { maxMessagesPerSecond: 2 } });
    for (let i = 0; i < 3; i++) sender.send({ event: 'pusher:ping', data: {} });
    expect(errorCode(await sender.next('pusher:error'))).toBe(4301);
    await sleep(1100); // The limit is per second: time has to pass.
    expect(await sender.isServed()).toBe(true);
  });
});
