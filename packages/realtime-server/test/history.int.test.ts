import { signChannelAuth } from '@herald/protocol-core';
import { until } from '@herald/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { APP, type Frame, RawClient, startServer } from './support.js';

// Channel history on one node, seen on the wire: serials on every kind of channel event, and a resubscribe with a
// position answered with the confirmation, the missed events in order, then live ones. (pusher-js with
// @herald/recovery across a real reconnect: apps/realtime's recovery test.)

type Started = Awaited<ReturnType<typeof startServer>>;
const running: Started[] = [];
const clients: RawClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  for (const started of running.splice(0)) await started.stop();
});

async function start(): Promise<Started> {
  const started = await startServer({ app: { history: { enabled: true, maxEventsPerChannel: 50 } } });
  running.push(started);
  return started;
}

async function client(started: Started): Promise<RawClient> {
  const { client } = await RawClient.established(started.url());
  clients.push(client);
  return client;
}

/** The serial and epoch a frame's text carries. */
function positionOf(client: RawClient, frame: Frame): { herald_serial?: number; herald_epoch?: string } {
  const text = client.texts[client.frames.indexOf(frame)] ?? '{}';
  return JSON.parse(text);
}

const tick = (started: Started, channel: string, i: number) =>
  started.server.publish(APP.id, { channels: [channel], event: 'tick', data: JSON.stringify({ i }) });

describe('channel history on the wire', () => {
  it('numbers server publishes and client events of a channel alike, one more each', async () => {
    const started = await start();
    const alice = await client(started);
    const bob = await client(started);
    const confirmed = await alice.subscribe('private-chat');
    expect(positionOf(alice, confirmed).herald_serial).toBe(0);
    await bob.subscribe('private-chat');
    tick(started, 'private-chat', 1);
    alice.send({ event: 'client-typing', channel: 'private-chat', data: { who: 'alice' } });
    await bob.next('client-typing');
    tick(started, 'private-chat', 2);
    await until(
      () =>
        bob.frames.filter(
          (f) => f.channel === 'private-chat' && f.event !== 'pusher_internal:subscription_succeeded',
        ).length === 3,
      'three events at bob',
    );
    const events = bob.frames.filter((f) => f.event === 'tick' || f.event === 'client-typing');
    expect(events.map((f) => [f.event, positionOf(bob, f).herald_serial])).toEqual([
      ['tick', 1],
      ['client-typing', 2],
      ['tick', 3],
    ]);
    // The sender does not get its own client event, as always.
    expect(alice.frames.filter((f) => f.event === 'client-typing')).toEqual([]);
  });

  it('replays after a position on a presence channel, with the current members only, then goes live', async () => {
    const started = await start();
    const ada = await client(started);
    await ada.subscribe('presence-room', { user_id: 'ada' });
    for (let i = 1; i <= 4; i += 1) tick(started, 'presence-room', i);
    await until(() => ada.frames.filter((f) => f.event === 'tick').length === 4, 'four events at ada');
    const epoch = positionOf(ada, ada.frames.find((f) => f.event === 'tick') as Frame).herald_epoch;

    const grace = await client(started);
    const channelData = JSON.stringify({ user_id: 'grace' });
    const data = {
      channel: 'presence-room',
      auth: signChannelAuth(APP, { socketId: grace.socketId, channel: 'presence-room', channelData }),
      channel_data: channelData,
      herald_after: 2,
      herald_epoch: epoch,
    };
    const confirmed = await grace.subscribeWith(data);
    expect(confirmed.event).toBe('pusher_internal:subscription_succeeded');
    expect((confirmed.data as { presence: { ids: string[] } }).presence.ids.sort()).toEqual(['ada', 'grace']);
    tick(started, 'presence-room', 5);
    await until(() => grace.frames.filter((f) => f.event === 'tick').length === 3, 'three events at grace');
    const after = grace.frames.slice(grace.frames.indexOf(confirmed) + 1);
    // Only the channel's events are replayed: no member_added of ada's join.
    expect(after.map((f) => [f.event, (f.data as { i?: number }).i])).toEqual([
      ['tick', 3],
      ['tick', 4],
      ['tick', 5],
    ]);
  });

  it('refuses a replay without a valid signature: no event of the private channel is sent', async () => {
    const started = await start();
    const ada = await client(started);
    await ada.subscribe('private-vault');
    tick(started, 'private-vault', 1);
    await until(() => ada.frames.some((f) => f.event === 'tick'), 'the event at ada');
    const epoch = positionOf(ada, ada.frames.find((f) => f.event === 'tick') as Frame).herald_epoch;
    const mallory = await client(started);
    const answer = await mallory.subscribeWith({
      channel: 'private-vault',
      auth: 'app-key:0000',
      ...{ herald_after: 0, herald_epoch: epoch },
    });
    expect(answer.event).toBe('pusher:subscription_error');
    await mallory.roundTrip();
    expect(mallory.frames.filter((f) => f.event === 'tick')).toEqual([]);
  });
});
