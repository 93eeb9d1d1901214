// The scenarios. Each takes a started target and returns one flat result object; every run is bounded in time
// and count and stops by itself.
import autocannon from 'autocannon';
import WebSocket from 'ws';
import { nowMicros } from './histogram.mjs';
import { LoadPool, Publisher, sdkTriggerPool, signedEvent } from './load.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value, digits = 0) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : null);

/** Splits `total` items over `parts` processes. */
function share(total, parts, index) {
  return Math.floor(total / parts) + (index < total % parts ? 1 : 0);
}

function offsetOf(total, parts, index) {
  let offset = 0;
  for (let i = 0; i < index; i++) offset += share(total, parts, i);
  return offset;
}

/** Samples the server's CPU time around a measured window: the share of one core it used. */
function cpuMeter(target) {
  const cpu0 = target.cpuSeconds();
  const t0 = performance.now();
  const meter = () => round((100 * (target.cpuSeconds() - cpu0)) / ((performance.now() - t0) / 1000));
  /** The server's CPU seconds since the meter started. */
  meter.seconds = () => target.cpuSeconds() - cpu0;
  const times0 = target.cpuTimes?.();
  /** The server's CPU seconds in user space and in the kernel since the meter started. */
  meter.times = () => {
    const times = target.cpuTimes?.();
    return { user: times?.user - times0?.user, system: times?.system - times0?.system };
  };
  const writes0 = target.writeCalls?.() ?? Number.NaN;
  /** The server's write-family system calls since the meter started (one per socket write that reached the kernel). */
  meter.writeCalls = () => (target.writeCalls?.() ?? Number.NaN) - writes0;
  return meter;
}

async function idle(target, { connections, processes, log }) {
  const rssBefore = target.rssKiB();
  const t0 = performance.now();
  const pool = await LoadPool.open(
    processes,
    (i) => ({
      role: 'subscribe',
      url: target.url,
      count: share(connections, processes, i),
      offset: offsetOf(connections, processes, i),
      channel: 'idle-',
      channelModulo: 1000,
      concurrency: 64,
    }),
    { log, timeoutMs: 300_000 },
  );
  const seconds = (performance.now() - t0) / 1000;
  await sleep(2000);
  const rssAfter = target.rssKiB();
  const result = {
    connections: pool.connected,
    failed: pool.failed,
    connect_s: round(seconds, 2),
    conns_per_s: round(pool.connected / seconds),
    rss_mib: round(rssAfter / 1024, 1),
    kib_per_conn: round((rssAfter - rssBefore) / Math.max(1, pool.connected), 2),
  };
  await target.stop(); // the server closes first, so the load side holds no TIME_WAIT ports
  await pool.close();
  return result;
}

// What the stalled readers are sent on a channel of their own at the start of the window: more than loopback's
// kernel buffers hold for a socket that does not read (the server's send buffer grows to 4 MiB here, the reader's
// receive buffer stays near its 128 KiB default), so their unsent bytes pass the server's limit (1 MiB by default)
// within the run, as a phone's do when it stops reading on a busy channel.
const STALL_FLOOD_CHANNEL = 'stall-flood';
const STALL_FLOOD_EVENTS = 192;
const STALL_FLOOD_EVENT_BYTES = 64 * 1024;

/**
 * Sends {@link STALL_FLOOD_EVENTS} events of {@link STALL_FLOOD_EVENT_BYTES} to the stalled readers' own channel
 * (12 MiB each), on a publisher of its own so the fan-out's publish counts stay the subscribers'.
 */
async function floodStalled(port) {
  const flood = new Publisher(port, 2);
  const data = 'y'.repeat(STALL_FLOOD_EVENT_BYTES);
  for (let i = 0; i < STALL_FLOOD_EVENTS; i += 2) {
    await Promise.all([
      flood.trigger(STALL_FLOOD_CHANNEL, 'flood', data),
      flood.trigger(STALL_FLOOD_CHANNEL, 'flood', data),
    ]);
  }
  flood.close();
  return flood;
}

/**
 * Readers that subscribe to `channel` (and to their own flood channel) and then stop reading (their TCP sockets
 * paused), as phones on a dead network do; opened in the load process, beside the pool. `ended()` tells how each
 * one ended, once the run's figures are taken.
 */
async function stalledReaders(url, channel, count) {
  const readers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise((resolve, reject) => {
          const ws = new WebSocket(url, { perMessageDeflate: false });
          const reader = { ws, closeCode: undefined, subscribed: 0 };
          ws.on('close', (code) => {
            reader.closeCode = code;
          });
          ws.on('error', reject);
          ws.on('message', (raw) => {
            const text = raw.toString();
            if (text.includes('connection_established')) {
              ws.send(JSON.stringify({ event: 'pusher:subscribe', data: { channel } }));
              ws.send(JSON.stringify({ event: 'pusher:subscribe', data: { channel: STALL_FLOOD_CHANNEL } }));
            } else if (text.includes('subscription_succeeded') && ++reader.subscribed === 2) {
              ws.pause();
              resolve(reader);
            }
          });
        }),
    ),
  );
  return {
    /**
     * How each reader ended, as its client sees it: a paused socket reads nothing, so not even the server's close
     * frame, until it reads again. Each reader resumes and reads what its kernel buffers held, then the close
     * frame if the server sent one (up to 10 s; a reader still open then was never closed).
     */
    ended: async () => {
      for (const reader of readers) reader.ws.resume();
      const deadline = performance.now() + 10_000;
      while (readers.some((reader) => reader.closeCode === undefined) && performance.now() < deadline) {
        await sleep(100);
      }
      const closed = readers.filter((reader) => reader.closeCode !== undefined);
      return {
        stalled: readers.length,
        stalled_closed: closed.length,
        stalled_close_codes: [...new Set(closed.map((reader) => reader.closeCode))].join(' ') || 'open',
      };
    },
    close: () => {
      for (const reader of readers) reader.ws.terminate();
    },
  };
}

/**
 * Fan-out at full speed: signed REST triggers to one channel with `subscribers` sockets, as fast as the
 * deliveries keep up (at most `windowDeliveries` deliveries in flight), for `seconds`. `padding` bytes are added to
 * each event's data; `stalled` readers that never read sit on the channel beside the subscribers, pushed past the
 * server's unsent-bytes limit by a flood on a channel of their own (the figures are the subscribers' only).
 */
async function fanout(
  target,
  { subscribers, seconds, processes, log, windowDeliveries = 50_000, lanes = 4, padding = 0, stalled = 0 },
) {
  const pool = await LoadPool.open(
    processes,
    (i) => ({
      role: 'subscribe',
      url: target.url,
      count: share(subscribers, processes, i),
      channel: 'fanout',
    }),
    { log },
  );
  const subs = pool.connected;
  const stalledSet = stalled > 0 ? await stalledReaders(target.url, 'fanout', stalled) : undefined;
  const pad = padding > 0 ? ` ${'x'.repeat(padding)}` : '';
  const publisher = new Publisher(target.port, lanes);
  const window = Math.max(1, Math.floor(windowDeliveries / subs));
  let published = 0;
  let running = true;
  await pool.start();
  const meter = cpuMeter(target);
  const sleeps0 = pool.sleeps();
  const t0 = performance.now();
  const flooded = stalledSet ? floodStalled(target.port) : undefined;
  const lane = async () => {
    while (running) {
      if ((published - publisher.failed + 1) * subs - pool.received() > window * subs) {
        await pool.nextProgress();
        continue;
      }
      published++;
      await publisher.trigger('fanout', 'tick', `@${nowMicros()}${pad}`);
    }
  };
  const lanesDone = Promise.all(Array.from({ length: lanes }, lane));
  await sleep(seconds * 1000);
  running = false;
  const elapsed = (performance.now() - t0) / 1000;
  const receivedInWindow = pool.received();
  const cpu = meter();
  const writeCalls = meter.writeCalls();
  const times = meter.times();
  const readerSleeps = pool.sleeps() - sleeps0;
  await lanesDone;
  const flood = await flooded;
  const expected = publisher.ok * subs;
  // Drain: wait for what is in flight (at most 10 s, or 2 s without progress).
  const drainDeadline = performance.now() + 10_000;
  let last = -1;
  let lastChange = performance.now();
  while (
    pool.received() < expected &&
    performance.now() < drainDeadline &&
    performance.now() - lastChange < 2000
  ) {
    await pool.nextProgress(100);
    if (pool.received() !== last) {
      last = pool.received();
      lastChange = performance.now();
    }
  }
  await pool.stop();
  const totals = await pool.collect();
  publisher.close();
  const stalledEnd = await stalledSet?.ended();
  stalledSet?.close();
  await pool.close();
  if (publisher.failed) log(`fan-out: ${publisher.failed} publishes failed (${publisher.lastError})`);
  return {
    ...stalledEnd,
    ...(flood ? { stalled_flood_mib: round((flood.ok * STALL_FLOOD_EVENT_BYTES) / 2 ** 20, 1) } : {}),
    subscribers: subs,
    publishes_s: round(publisher.ok / elapsed),
    deliveries_s: round(receivedInWindow / elapsed),
    ...latency(totals.histogram),
    delivery_ratio: round(totals.received / Math.max(1, expected), 4),
    failed_publishes: publisher.failed,
    server_cpu: cpu,
    deliveries_per_cpu_s: perCpu(receivedInWindow / elapsed, cpu),
    // Frames per socket write: each write is a system call, the largest part of a delivery's cost, and a server whose
    // subscribers fall behind writes several frames at once (Node queues them while the socket is busy).
    ...(Number.isFinite(writeCalls) && writeCalls > 0
      ? { deliveries_per_write: round(receivedInWindow / writeCalls, 2) }
      : {}),
    // Server CPU per delivery split into its JavaScript and native work (user) and its system calls (kernel): the
    // kernel's part of a socket write depends on the readers (a sleeping reader costs a wake-up), the user part not.
    ...(receivedInWindow > 0 && Number.isFinite(times.user)
      ? {
          user_us_per_delivery: round((times.user * 1e6) / receivedInWindow, 2),
          kernel_us_per_delivery: round((times.system * 1e6) / receivedInWindow, 2),
        }
      : {}),
    // How often the load processes waited for data, per 1 000 deliveries: busy readers need no wake-up.
    ...(receivedInWindow > 0 && Number.isFinite(readerSleeps)
      ? { reader_sleeps_per_1k: round((readerSleeps * 1000) / receivedInWindow, 1) }
      : {}),
  };
}

/**
 * What the server does per second of its own CPU: the rate divided by the share of its core it used. When the
 * load core is the bottleneck (the server core is not saturated), this is the figure that compares servers.
 */
function perCpu(rate, cpuPercent) {
  return cpuPercent > 0 ? round((rate * 100) / cpuPercent) : null;
}

function latency(histogram) {
  const { p50, p95, p99 } = histogram.summary();
  return { p50_ms: p50, p95_ms: p95, p99_ms: p99 };
}

/** Fan-out at a fixed moderate rate: `rate` signed triggers per second to `subscribers` sockets. */
async function fanoutRate(target, { subscribers, rate, seconds, processes, log }) {
  const pool = await LoadPool.open(
    processes,
    (i) => ({ role: 'subscribe', url: target.url, count: share(subscribers, processes, i), channel: 'rate' }),
    { log },
  );
  const publisher = new Publisher(target.port, 16);
  await pool.start();
  const meter = cpuMeter(target);
  const t0 = performance.now();
  const total = Math.round(rate * seconds);
  const pending = [];
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    pending.push(publisher.trigger('rate', 'tick', `@${nowMicros()}`));
  }
  await Promise.all(pending);
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = meter();
  const expected = publisher.ok * pool.connected;
  const deadline = performance.now() + 5000;
  while (pool.received() < expected && performance.now() < deadline) await pool.nextProgress(100);
  await pool.stop();
  const totals = await pool.collect();
  publisher.close();
  await pool.close();
  return {
    subscribers: pool.connected,
    publishes_s: round(publisher.ok / elapsed),
    ...latency(totals.histogram),
    delivery_ratio: round(totals.received / Math.max(1, expected), 4),
    server_cpu: cpu,
  };
}

/**
 * The figures of an autocannon run against the REST API, given the server's CPU seconds over the whole call.
 * autocannon builds its requests before any traffic (about 2 s for a pool of 4 096 on 32 connections), while the
 * server idles: its CPU share is taken over the `seconds` of traffic, and `req_per_cpu_s` is requests ÷ CPU
 * seconds. (Until 2026-11-25, session 5, the share was taken over the whole call, setup included, which made
 * `req_per_cpu_s` of the pooled scenarios up to about 1.9× too high in quick runs.)
 */
function restFigures(result, seconds, cpuSeconds) {
  const reqPerSecond = result.requests.total / seconds;
  return {
    req_s: round(reqPerSecond),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    non_2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    server_cpu: round((100 * cpuSeconds) / seconds),
    req_per_cpu_s: cpuSeconds > 0 ? round(result.requests.total / cpuSeconds) : null,
  };
}

/** REST triggers to a channel nobody subscribes to: one pre-signed request replayed by autocannon. */
async function rest(target, { seconds, connections = 32 }) {
  const { path, body } = signedEvent('rest-empty', 'tick', '{"n":1}');
  const meter = cpuMeter(target);
  const result = await autocannon({
    url: `${target.restBase}${path}`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    connections,
    duration: seconds,
  });
  return restFigures(result, seconds, meter.seconds());
}

/**
 * REST triggers as the `pusher` SDK sends them, from a pre-signed pool of distinct requests (distinct bodies,
 * `body_md5`, timestamps and signatures) that autocannon cycles through. Pre-signed rather than signed per request so
 * the load side costs the same for both kinds of auth and the figure is the server's; the pool is signed just before
 * the run, well inside the 600 s window. `auth`: `signed` (query signature) or `bearer`.
 */
async function restPool(target, { seconds, auth, connections = 32, poolSize = 4096 }) {
  const requests = sdkTriggerPool('rest-empty', poolSize, auth);
  const meter = cpuMeter(target);
  const result = await autocannon({ url: target.restBase, requests, connections, duration: seconds });
  return restFigures(result, seconds, meter.seconds());
}

/** Client events between the two sockets of each private channel, `window` in flight per direction. */
async function clientEvents(target, { pairs, seconds, processes, log, window = 4 }) {
  const pool = await LoadPool.open(
    processes,
    (i) => ({ role: 'pairs', url: target.url, count: 2 * share(pairs, processes, i), window }),
    { log },
  );
  await pool.start();
  const meter = cpuMeter(target);
  const t0 = performance.now();
  await sleep(seconds * 1000);
  const elapsed = (performance.now() - t0) / 1000;
  const receivedInWindow = pool.received();
  const cpu = meter();
  const drained = await pool.stop(5000);
  const totals = await pool.collect();
  await pool.close();
  return {
    pairs: pool.connected / 2,
    deliveries_s: round(receivedInWindow / elapsed),
    ...latency(totals.histogram),
    delivery_ratio: round(totals.received / Math.max(1, totals.sent), 4),
    drained,
    server_cpu: cpu,
    deliveries_per_cpu_s: perCpu(receivedInWindow / elapsed, cpu),
  };
}

/** Presence churn: `churners` sockets join and leave one presence channel in a loop, `watchers` stay in it. */
async function presence(target, { churners, watchers, seconds, processes, log }) {
  const pool = await LoadPool.open(
    processes,
    (i) => {
      const w = share(watchers, processes, i);
      return {
        role: 'presence',
        url: target.url,
        channel: 'presence-churn',
        watchers: w,
        count: w + share(churners, processes, i),
      };
    },
    { log },
  );
  await pool.start();
  const meter = cpuMeter(target);
  const t0 = performance.now();
  await sleep(seconds * 1000);
  const cpu = meter();
  const drained = await pool.stop(5000);
  const elapsed = (performance.now() - t0) / 1000;
  // Wait for the member_added frames of the last joins (at most 5 s).
  let totals = await pool.collect();
  const deadline = performance.now() + 5000;
  while (totals.memberAdded < totals.joins * watchers && performance.now() < deadline) {
    await sleep(200);
    totals = await pool.collect();
  }
  await pool.close();
  const { p50, p99 } = totals.joinHistogram.summary();
  return {
    churners,
    watchers,
    joins_s: round(totals.joins / elapsed),
    join_p50_ms: p50,
    join_p99_ms: p99,
    member_added_ratio: round(totals.memberAdded / Math.max(1, totals.joins * watchers), 4),
    errors: totals.errors,
    drained,
    server_cpu: cpu,
    joins_per_cpu_s: perCpu(totals.joins / elapsed, cpu),
  };
}

/** Every scenario with its parameters, quick and full, and the figures shown in the table (first = headline). */

/** What the two full-speed fan-out scenarios report. */
const FANOUT_FIGURES = [
  'deliveries_s',
  'deliveries_per_cpu_s',
  'publishes_s',
  'p50_ms',
  'p95_ms',
  'p99_ms',
  'delivery_ratio',
  'server_cpu',
  'user_us_per_delivery',
  'kernel_us_per_delivery',
  'deliveries_per_write',
  'reader_sleeps_per_1k',
];
const FANOUT_LOWER_IS_BETTER = [
  'p50_ms',
  'p95_ms',
  'p99_ms',
  'user_us_per_delivery',
  'kernel_us_per_delivery',
];

export function scenarios({ quick, maxConnections }) {
  const s = (quickValue, fullValue) => (quick ? quickValue : fullValue);
  const list = [
    {
      name: 'idle',
      run: (t, o) => idle(t, { ...o, connections: s(2000, 10_000) }),
      figures: ['kib_per_conn', 'conns_per_s', 'connect_s', 'rss_mib', 'connections'],
      lowerIsBetter: ['kib_per_conn', 'connect_s', 'rss_mib'],
    },
    {
      name: 'idle-max',
      full: true,
      run: (t, o) => idle(t, { ...o, connections: maxConnections }),
      figures: ['connections', 'kib_per_conn', 'conns_per_s', 'connect_s', 'rss_mib'],
      lowerIsBetter: ['kib_per_conn', 'connect_s', 'rss_mib'],
    },
    {
      name: 'fanout-1k',
      run: (t, o) => fanout(t, { ...o, subscribers: 1000, seconds: s(2, 10) }),
      figures: FANOUT_FIGURES,
      lowerIsBetter: FANOUT_LOWER_IS_BETTER,
    },
    {
      name: 'fanout-5k',
      run: (t, o) => fanout(t, { ...o, subscribers: 5000, seconds: s(2, 10) }),
      figures: FANOUT_FIGURES,
      lowerIsBetter: FANOUT_LOWER_IS_BETTER,
    },
    // The same fan-out with 2 KiB events, without and then with 4 readers that stopped reading on the channel: a
    // stalled reader must not slow the others (Herald closes it with 4100 past max_buffered_bytes_per_socket).
    {
      name: 'fanout-padded',
      run: (t, o) => fanout(t, { ...o, subscribers: 1000, padding: 2048, seconds: s(6, 10) }),
      figures: FANOUT_FIGURES,
      lowerIsBetter: FANOUT_LOWER_IS_BETTER,
    },
    {
      name: 'fanout-stalled',
      run: (t, o) => fanout(t, { ...o, subscribers: 1000, padding: 2048, stalled: 4, seconds: s(6, 10) }),
      figures: [...FANOUT_FIGURES, 'stalled_closed', 'stalled_close_codes', 'stalled_flood_mib'],
      lowerIsBetter: FANOUT_LOWER_IS_BETTER,
    },
    {
      name: 'fanout-rate',
      run: (t, o) => fanoutRate(t, { ...o, subscribers: 100, rate: 200, seconds: s(2, 15) }),
      figures: ['p99_ms', 'p50_ms', 'p95_ms', 'publishes_s', 'delivery_ratio', 'server_cpu'],
      lowerIsBetter: ['p50_ms', 'p95_ms', 'p99_ms', 'server_cpu'],
    },
    {
      name: 'rest',
      run: (t, o) => rest(t, { ...o, seconds: s(2, 10) }),
      figures: ['req_s', 'req_per_cpu_s', 'p50_ms', 'p99_ms', 'non_2xx', 'server_cpu'],
      lowerIsBetter: ['p50_ms', 'p99_ms'],
    },
    {
      name: 'rest-bearer',
      run: (t, o) => restPool(t, { ...o, auth: 'bearer', seconds: s(2, 10) }),
      figures: ['req_s', 'req_per_cpu_s', 'p50_ms', 'p99_ms', 'non_2xx', 'server_cpu'],
      lowerIsBetter: ['p50_ms', 'p99_ms'],
    },
    {
      name: 'rest-signed',
      run: (t, o) => restPool(t, { ...o, auth: 'signed', seconds: s(2, 10) }),
      figures: ['req_s', 'req_per_cpu_s', 'p50_ms', 'p99_ms', 'non_2xx', 'server_cpu'],
      lowerIsBetter: ['p50_ms', 'p99_ms'],
    },
    {
      name: 'client-events',
      run: (t, o) => clientEvents(t, { ...o, pairs: s(100, 500), seconds: s(2, 10) }),
      figures: ['deliveries_s', 'deliveries_per_cpu_s', 'p50_ms', 'p99_ms', 'delivery_ratio', 'server_cpu'],
      lowerIsBetter: ['p50_ms', 'p99_ms'],
    },
    {
      name: 'presence',
      run: (t, o) => presence(t, { ...o, churners: 100, watchers: 4, seconds: s(2, 10) }),
      figures: [
        'joins_s',
        'joins_per_cpu_s',
        'member_added_ratio',
        'join_p50_ms',
        'join_p99_ms',
        'server_cpu',
      ],
      lowerIsBetter: ['join_p50_ms', 'join_p99_ms'],
    },
  ];
  return quick ? list.filter((scenario) => !scenario.full) : list;
}
