import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, RawClient, startServer } from './support.js';

// Authorised connections with a 1 s timeout: every socket opens at once; the idle ones are closed with 4009 after
// the second, the ones that signed in or subscribed to a private or presence channel are still served then.

type Started = Awaited<ReturnType<typeof startServer>>;

describe('authorised connections', () => {
  let started: Started;
  let idle: RawClient;
  let publicOnly: RawClient;
  let signedIn: RawClient;
  let privateSubscriber: RawClient;
  let presenceMember: RawClient;

  beforeAll(async () => {
    started = await startServer({ app: { authorizedConnections: { enabled: true, timeoutSeconds: 1 } } });
    const connect = async () => (await RawClient.established(started.url())).client;
    [idle, publicOnly, signedIn, privateSubscriber, presenceMember] = await Promise.all([
      connect(),
      connect(),
      connect(),
      connect(),
      connect(),
    ]);
    await publicOnly.subscribe('news');
    expect((await signedIn.signin({ id: 'ada' })).event).toBe('pusher:signin_success');
    await privateSubscriber.subscribe('private-orders');
    await presenceMember.subscribe('presence-room', { user_id: 'bob' });
  });

  afterAll(async () => {
    await started?.stop();
  });

  it('closes an idle anonymous socket with 4009 after the timeout', async () => {
    const closed = await idle.closed;
    expect(closed.code).toBe(4009);
    expect(idle.frames.filter((frame) => frame.event === 'pusher:error').map(errorCode)).toEqual([4009]);
  });

  it('closes a socket on public channels only, too', async () => {
    expect((await publicOnly.closed).code).toBe(4009);
  });

  it('keeps sockets that signed in or subscribed to a private or presence channel', async () => {
    // Opened together with the idle ones: once those are closed, the deadline has passed for these as well.
    await idle.closed;
    await publicOnly.closed;
    for (const client of [signedIn, privateSubscriber, presenceMember])
      expect(await client.isServed()).toBe(true);
    const metric = await started.server.metrics.registry
      .getSingleMetric('herald_unauthorized_connections_closed_total')
      ?.get();
    expect(metric?.values[0]?.value).toBe(2);
  });
});
