import { until } from '@herald/test-kit';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { errorCode, RawClient, startServer } from './support.js';

// A reader that stops reading (its TCP socket paused, so the kernel buffers fill and the server's backlog grows)
// while the test publishes far more than the limit to its channel, beside a reader that keeps up.

type Started = Awaited<ReturnType<typeof startServer>>;

const LIMIT = 256 * 1024;
const EVENT_BYTES = 8 * 1024;
// 64 MiB: far past the limit and past what the kernel's socket buffers on both ends of loopback can hold.
const EVENTS = 8000;
// Kept for the stalled reader, the backlog would be 64 MiB less the kernel's buffers (unbounded, the process grew
// 63–67 MiB); the test holds this process (server, both readers, the transport's cap of the limit plus 8 MiB for the
// stalled one, and the garbage of 16 000 frames not yet collected: young generation up to 3 × 8 MiB here) to 48 MiB
// above where it started. Bounded, it grew 20–32 MiB on Node 20 and 22 and 32–35 MiB on Node 24.
const RSS_GROWTH_BOUND = 48 * 1024 * 1024;
// Publishing 64 MiB twice over on a busy two-core machine: more than the suite's default 20 s.
const TEST_LIMIT_MS = 60_000;

const payload = JSON.stringify({ fill: 'x'.repeat(EVENT_BYTES) });

/** Publishes in small bursts, each a turn of the event loop as REST triggers arrive; returns the highest RSS seen. */
async function publishMany(started: Started): Promise<number> {
  let peak = process.memoryUsage().rss;
  for (let i = 0; i < EVENTS; i++) {
    started.server.publish('app-1', { channels: ['feed'], event: 'tick', data: payload });
    if (i % 16 === 15) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      peak = Math.max(peak, process.memoryUsage().rss);
    }
  }
  return peak;
}

/** A subscriber that keeps up and only counts what it gets (keeping 48 MiB of frames would swamp the RSS measure). */
class CountingReader {
  ticks = 0;
  pongs = 0;
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (raw: Buffer) => {
      const text = raw.toString();
      if (text.startsWith('{"event":"tick"')) this.ticks += 1;
      else if (text.includes('pusher:pong')) this.pongs += 1;
    });
  }

  static async subscribed(url: string, channel: string): Promise<CountingReader> {
    const ws = new WebSocket(url);
    const reader = new CountingReader(ws);
    const confirmed = new Promise<void>((resolve) =>
      ws.on('message', (raw: Buffer) => {
        if (raw.toString().includes('subscription_succeeded')) resolve();
      }),
    );
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send(JSON.stringify({ event: 'pusher:subscribe', data: { channel } }));
    await confirmed;
    return reader;
  }

  /** Whether the socket still answers a ping. */
  async answers(): Promise<boolean> {
    const before = this.pongs;
    this.ws.send(JSON.stringify({ event: 'pusher:ping', data: {} }));
    await until(() => this.pongs > before, { what: 'a pong' });
    return true;
  }
}

async function readers(started: Started) {
  const stalled = await RawClient.established(started.url());
  await stalled.client.subscribe('feed');
  const healthy = await CountingReader.subscribed(started.url(), 'feed');
  stalled.client.ws.pause();
  return { stalled, healthy };
}

const ticks = (client: RawClient) => client.frames.filter((frame) => frame.event === 'tick').length;

describe('slow consumers', () => {
  let started: Started | undefined;

  // The same load once with a reader that keeps up, so the process's heap has grown to it before any test measures
  // (otherwise the first test's RSS would count V8 warming up, not what the server holds for a stalled reader).
  beforeAll(async () => {
    const warm = await startServer();
    try {
      const reader = await CountingReader.subscribed(warm.url(), 'feed');
      await publishMany(warm);
      await until(() => reader.ticks === EVENTS, 'the warm-up events');
      reader.ws.terminate();
    } finally {
      await warm.stop();
    }
  }, TEST_LIMIT_MS);
  afterEach(async () => {
    await started?.stop();
    started = undefined;
  });

  it(
    'closes a reader that stopped reading with 4100 while another subscriber gets every event',
    async () => {
      started = await startServer({ maxBufferedBytesPerSocket: LIMIT });
      const { stalled, healthy } = await readers(started);
      const closes: Array<{ socketId: string; code: number }> = [];
      started.server.events.on('connectionClosed', (event) => {
        closes.push(event);
        // Reading again once the server gave up on it (and before the server stops waiting for its close handshake),
        // the client finds what was buffered for it, then the 4100 error and the close.
        if (event.socketId === stalled.socketId) stalled.client.ws.resume();
      });
      const before = process.memoryUsage().rss;

      const peak = await publishMany(started);

      await until(() => closes.some((close) => close.socketId === stalled.socketId), {
        what: 'the server to close the stalled reader',
      });
      expect(closes.find((close) => close.socketId === stalled.socketId)?.code).toBe(4100);
      expect(peak - before).toBeLessThan(RSS_GROWTH_BOUND);
      expect((await stalled.client.closed).code).toBe(4100);
      expect(stalled.client.frames.filter((frame) => frame.event === 'pusher:error').map(errorCode)).toEqual([
        4100,
      ]);
      expect(ticks(stalled.client)).toBeLessThan(EVENTS);
      await until(() => healthy.ticks === EVENTS, { what: `all ${EVENTS} events at the healthy reader` });
      expect(await healthy.answers()).toBe(true);
      const metric = await started.server.metrics.registry
        .getSingleMetric('herald_slow_consumers_closed_total')
        ?.get();
      expect(metric?.values[0]?.value).toBe(1);
    },
    TEST_LIMIT_MS,
  );

  it(
    'with slow_consumer "drop", keeps the stalled reader open and drops what it cannot take',
    async () => {
      started = await startServer({ maxBufferedBytesPerSocket: LIMIT, slowConsumer: 'drop' });
      const { stalled, healthy } = await readers(started);
      const before = process.memoryUsage().rss;

      const peak = await publishMany(started);

      await until(() => healthy.ticks === EVENTS, { what: `all ${EVENTS} events at the healthy reader` });
      expect(peak - before).toBeLessThan(RSS_GROWTH_BOUND);
      stalled.client.ws.resume();
      // Still served once it reads again, the frames past the limit dropped on the way. Its backlog comes first, and
      // a ping answered while the server still holds more than the limit for it is dropped too: it asks until answered.
      await until(() => stalled.client.isServed(), { what: 'the stalled reader to be answered again' });
      expect(stalled.client.ws.readyState).toBe(WebSocket.OPEN);
      expect(ticks(stalled.client)).toBeGreaterThan(0);
      expect(ticks(stalled.client)).toBeLessThan(EVENTS);
    },
    TEST_LIMIT_MS,
  );
});
