import { until } from '@herald/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApplicationEvents } from '../src/index.js';
import { RawClient, startServer } from './support.js';

type Started = Awaited<ReturnType<typeof startServer>>;
type Recorded = {
  [K in keyof ApplicationEvents]: { name: K; payload: ApplicationEvents[K] };
}[keyof ApplicationEvents];

describe('application events', () => {
  let started: Started | undefined;
  afterEach(async () => {
    await started?.stop();
  });

  it('reports a socket’s life: connection, channel, messages, removal and close, in order', async () => {
    started = await startServer({
      httpHandler: () => new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } }),
    });
    const seen: Recorded[] = [];
    const names: Array<keyof ApplicationEvents> = [
      'connectionEstablished',
      'connectionClosed',
      'channelCreated',
      'channelRemoved',
      'messageReceived',
      'messageSent',
      'httpApiEvent',
    ];
    for (const name of names) {
      started.server.events.on(name, (payload) => seen.push({ name, payload } as Recorded));
    }
    const client = await RawClient.connect(started.url());
    await client.next('pusher:connection_established');
    await client.subscribe('news');
    started.server.publish('app-1', { channels: ['news'], event: 'posted', data: '{}' });
    await client.next('posted');
    client.send({ event: 'pusher:unsubscribe', data: { channel: 'news' } });
    await client.roundTrip();
    await fetch(`http://127.0.0.1:${started.port}/apps/app-1/channels`);
    client.close();
    await client.closed;
    await until(() => seen.at(-1)?.name === 'connectionClosed', 'connectionClosed');

    const socketId = client.socketId;
    expect(seen.map((entry) => entry.name)).toEqual([
      'connectionEstablished',
      'messageReceived',
      'channelCreated',
      'messageSent',
      'messageReceived',
      'channelRemoved',
      'messageReceived',
      'httpApiEvent',
      'connectionClosed',
    ]);
    expect(seen[0]?.payload).toMatchObject({ appId: 'app-1', socketId });
    expect(seen[1]?.payload).toMatchObject({ event: 'pusher:subscribe', channel: 'news' });
    expect(seen[3]?.payload).toEqual({ appId: 'app-1', channel: 'news', event: 'posted', recipients: 1 });
    expect(seen[7]?.payload).toMatchObject({
      appId: 'app-1',
      method: 'GET',
      path: '/apps/app-1/channels',
      status: 200,
    });
    expect(seen[8]?.payload).toMatchObject({ appId: 'app-1', socketId });
  });

  it('alone, reports a channel occupied and vacated once each, and member_removed after the last socket', async () => {
    started = await startServer();
    const seen: string[] = [];
    started.server.events.on('channelOccupied', ({ channel }) => seen.push(`occupied ${channel}`));
    started.server.events.on('channelVacated', ({ channel }) => seen.push(`vacated ${channel}`));
    started.server.events.on('memberAdded', ({ userId }) => seen.push(`added ${userId}`));
    started.server.events.on('memberRemoved', ({ userId }) => seen.push(`removed ${userId}`));
    const first = await RawClient.connect(started.url());
    const second = await RawClient.connect(started.url());
    await Promise.all([
      first.next('pusher:connection_established'),
      second.next('pusher:connection_established'),
    ]);
    await first.subscribe('presence-room', { user_id: 'ada' });
    await second.subscribe('presence-room', { user_id: 'ada' });
    first.close();
    await first.closed;
    await second.roundTrip();
    expect(seen).toEqual(['occupied presence-room', 'added ada']);
    second.send({ event: 'pusher:unsubscribe', data: { channel: 'presence-room' } });
    await second.roundTrip();
    expect(seen).toEqual(['occupied presence-room', 'added ada', 'removed ada', 'vacated presence-room']);
    second.close();
  });

  it('keeps serving when a listener throws, and stops calling a removed listener', async () => {
    started = await startServer();
    started.server.events.on('connectionEstablished', () => {
      throw new Error('listener bug');
    });
    let calls = 0;
    const off = started.server.events.on('connectionEstablished', () => {
      calls += 1;
    });
    const first = await RawClient.connect(started.url());
    await first.next('pusher:connection_established');
    off();
    const second = await RawClient.connect(started.url());
    await second.next('pusher:connection_established');
    expect(calls).toBe(1);
    expect(await first.isServed()).toBe(true);
    first.close();
    second.close();
  });
});
