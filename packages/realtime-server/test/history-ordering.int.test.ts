import type { ClusterAdapter, HistoryPosition } from '@herald/protocol-core';
import { createMemoryCluster } from '@herald/protocol-core/testing';
import { fence, until } from '@herald/test-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChannelHistory, createMemoryHistory } from '../src/index.js';
import { APP, type Frame, RawClient, startServer } from './support.js';

// Replay and live with a confirmation that comes later than the subscribe: a shared history answering with promises
// (as the Redis one does), and interest routing holding the node's first subscriber. The client must see its
// confirmation, the missed events, then live ones: each event once, in order.

type Started = Awaited<ReturnType<typeof startServer>>;
const running: Started[] = [];
const clients: RawClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  for (const started of running.splice(0)) await started.stop();
});

/** A gate a test opens when it wants. */
function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/**
 * A test double of a shared history (no Redis needed to show the ordering): the memory history underneath decides
 * serials and frames when asked, as Redis runs a script when it receives it; the answers come back as promises, in
 * the order asked, once the test opens `appends` / `reads`.
 */
function laterHistory() {
  const inner = createMemoryHistory();
  const gates = { appends: Promise.resolve(), reads: Promise.resolve() };
  const history: ChannelHistory = {
    append(appId, channel, encode, limits) {
      const frame = inner.append(appId, channel, encode, limits) as string;
      return gates.appends.then(() => frame);
    },
    position: async (appId, channel, limits) => inner.position(appId, channel, limits),
    read(appId, channel, after, limits) {
      const answer = inner.read(appId, channel, after, limits);
      return gates.reads.then(() => answer);
    },
    list: async (appId, channel, query, limits) => inner.list(appId, channel, query, limits),
    forget: (appId) => inner.forget(appId),
    close: () => inner.close(),
  };
  return { history, gates };
}

async function start(options: { history?: ChannelHistory; cluster?: ClusterAdapter } = {}): Promise<Started> {
  const started = await startServer({
    ...options,
    app: { history: { enabled: true, maxEventsPerChannel: 50 } },
  });
  running.push(started);
  return started;
}

async function client(started: Started): Promise<RawClient> {
  const { client } = await RawClient.established(started.url());
  clients.push(client);
  return client;
}

const tick = (started: Started, i: number) =>
  started.server.publish(APP.id, { channels: ['orders'], event: 'tick', data: JSON.stringify({ i }) });

const ticksOf = (client: RawClient) =>
  client.frames.filter((f: Frame) => f.event === 'tick').map((f) => (f.data as { i: number }).i);

/** Subscribes with a position; answers the events after the confirmation, as the client saw them. */
async function comeBack(started: Started, after: HistoryPosition) {
  const returning = await client(started);
  const confirmed = returning.subscribeWith({
    channel: 'orders',
    ...{ herald_after: after.serial, herald_epoch: after.epoch },
  });
  return { returning, confirmed };
}

/** The position a fresh subscriber is confirmed with. */
async function position(started: Started): Promise<{ watcher: RawClient; at: HistoryPosition }> {
  const watcher = await client(started);
  const confirmed = await watcher.subscribe('orders');
  const text = watcher.texts[watcher.frames.indexOf(confirmed)] ?? '{}';
  const { herald_serial: serial, herald_epoch: epoch } = JSON.parse(text);
  return { watcher, at: { serial, epoch } };
}

async function settled(started: Started, returning: RawClient, last: number) {
  await fence({
    received: () => ticksOf(returning),
    sendMarker: () => tick(started, last),
    isMarker: (i) => i === last,
  });
}

describe('replay and live with a history that answers later', () => {
  it('sends events published while the replay was read after it, once each', async () => {
    const { history, gates } = laterHistory();
    const started = await start({ history });
    const { watcher, at } = await position(started);
    for (let i = 1; i <= 3; i += 1) tick(started, i);
    await until(() => ticksOf(watcher).length === 3, 'three events at the watcher');
    const reads = gate();
    gates.reads = reads.opened;
    const { returning, confirmed } = await comeBack(started, { serial: at.serial + 1, epoch: at.epoch });
    await confirmed;
    // Published while the read is on its way: live here, not in the answer (it was read before).
    for (let i = 4; i <= 5; i += 1) tick(started, i);
    await until(() => ticksOf(watcher).length === 5, 'five events at the watcher');
    reads.open();
    await settled(started, returning, 6);
    expect(ticksOf(returning)).toEqual([2, 3, 4, 5, 6]);
  });

  it('skips a live event the replay already held when it reaches the node after the replay', async () => {
    const { history, gates } = laterHistory();
    const started = await start({ history });
    const { watcher, at } = await position(started);
    tick(started, 1);
    await until(() => ticksOf(watcher).length === 1, 'the first event');
    // Event 2 is in the history at once, but its fan-out here comes only after the replay went out.
    const appends = gate();
    gates.appends = appends.opened;
    tick(started, 2);
    const { returning, confirmed } = await comeBack(started, { serial: at.serial + 1, epoch: at.epoch });
    await confirmed;
    await until(() => ticksOf(returning).length === 1, 'the replay');
    appends.open();
    gates.appends = Promise.resolve();
    await until(() => ticksOf(watcher).length === 2, 'event 2 live at the watcher');
    tick(started, 3);
    await settled(started, returning, 4);
    expect(ticksOf(returning)).toEqual([2, 3, 4]);
  });
});

describe('replay and live while interest routing holds the confirmation', () => {
  it('holds live events until the confirmation and replay, then sends only the later ones', async () => {
    const node = createMemoryCluster().node('a');
    const routing = { next: undefined as Promise<void> | undefined };
    // The memory cluster answers at once; this node's first subscriber of a channel waits for `routing.next`, as
    // the Redis adapter's first subscriber waits for its topic subscription.
    const cluster: ClusterAdapter = {
      ...node,
      setLocalSubscriptions(appId, channel, count) {
        void node.setLocalSubscriptions(appId, channel, count);
        return count === 1 ? routing.next : undefined;
      },
    };
    const started = await start({ cluster });
    const { watcher, at } = await position(started);
    watcher.send({ event: 'pusher:unsubscribe', data: { channel: 'orders' } });
    await watcher.roundTrip();
    tick(started, 1);
    const routed = gate();
    routing.next = routed.opened;
    const { returning, confirmed } = await comeBack(started, at);
    await returning.roundTrip();
    // Published while the subscription waits for its routing: the node delivers it to the channel's topic.
    tick(started, 2);
    await returning.roundTrip();
    routed.open();
    await confirmed;
    await settled(started, returning, 3);
    const events = returning.frames
      .filter((f) => f.channel === 'orders')
      .map((f) => (f.event === 'tick' ? (f.data as { i: number }).i : f.event));
    expect(events).toEqual(['pusher_internal:subscription_succeeded', 1, 2, 3]);
  });
});
