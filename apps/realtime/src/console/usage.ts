// Usage an operator console charts: messages in and out, and connections, per minute over the last day, sampled
// from the plain per-app counts the server keeps for its metrics (nothing is added to the socket paths). Alone, a
// node keeps its own minutes in memory; in a cluster every node adds its samples to a shared store (Redis) and the
// console reads the cluster's sums from there.

import type { RealtimeServer } from '@herald/realtime-server';
import type { RedisUsageMinute, RedisUsageSample, RedisUsageStore } from '@herald/scaling-redis';

const MINUTE = 60_000;
const DAY_MINUTES = 24 * 60;
/** How often the counts are read; also the window of the messages-per-second rates. */
export const SAMPLE_MS = 5_000;

/** One minute of an app's usage: its start (ms since the epoch), messages in and out, and its most connections. */
export type UsageMinute = RedisUsageMinute;

/** A minute this node is counting. */
type Bucket = { -readonly [K in keyof UsageMinute]: UsageMinute[K] };

/** One node's sample of one app, as it is added to a {@link UsageStore}. */
export type UsageSample = RedisUsageSample;

/**
 * Where the nodes of a cluster add their samples up: `createRedisUsage` of @herald/scaling-redis (its types only
 * are imported here; a node alone never loads the package).
 */
export type UsageStore = Pick<RedisUsageStore, 'record' | 'minutes' | 'rates'>;

/** A series for a chart: start times (seconds since the epoch, as uPlot takes them) and values. */
export interface UsageSeries {
  readonly t: number[];
  readonly in: number[];
  readonly out: number[];
  readonly connections: number[];
}

/** What the console reads. */
export interface Usage {
  /** The last hour per minute, and the last day per 15 minutes (connections: the most in each step). */
  series(appId: string, now?: number): Promise<{ hour: UsageSeries; day: UsageSeries }>;
  /** Messages per second in and out over the last sample window. */
  rates(appId: string): Promise<{ in: number; out: number }>;
  /** Reads the counts now (the timer does so every {@link SAMPLE_MS}). */
  sample(now?: number): void;
  stop(): void;
}

interface Tracked {
  /** The totals at the last sample (what its minutes count from). */
  lastIn: number;
  lastOut: number;
  /** The totals at the last rated sample (what the rates count from). */
  ratedIn: number;
  ratedOut: number;
  rateIn: number;
  rateOut: number;
  /** The last sample added to the store was all zeros: the next one like it is left out. */
  quiet: boolean;
  readonly buckets: Bucket[];
}

/**
 * Samples the server's per-app counters every {@link SAMPLE_MS}; with a `store`, every sample of an app with anything
 * to tell is added to it too, and the console's reads come from it (the whole cluster's usage).
 */
export function createUsage(
  server: Pick<RealtimeServer, 'metrics'>,
  appIds: () => readonly string[],
  store?: UsageStore,
): Usage {
  const apps = new Map<string, Tracked>();
  let lastSample = Date.now();

  function sample(now = Date.now()): void {
    const seconds = (now - lastSample) / 1000;
    // A read on demand (a console opening its charts) right after the timer's keeps the last rates; the next rated
    // sample counts its messages in.
    const rated = seconds >= 1;
    if (rated) lastSample = now;
    const minute = Math.floor(now / MINUTE) * MINUTE;
    for (const appId of appIds()) {
      const counts = server.metrics.forApp(appId);
      // In: frames from clients and REST API calls; out: frames sent to clients.
      const totalIn = counts.received.value + server.metrics.forHttp(appId).calls.value;
      const totalOut = counts.sent.value;
      let tracked = apps.get(appId);
      if (!tracked) {
        // From zero, as the server's counts start: what came before the app's first sample is counted too.
        tracked = {
          lastIn: 0,
          lastOut: 0,
          ratedIn: 0,
          ratedOut: 0,
          rateIn: 0,
          rateOut: 0,
          quiet: false,
          buckets: [],
        };
        apps.set(appId, tracked);
      }
      const gainedIn = totalIn - tracked.lastIn;
      const gainedOut = totalOut - tracked.lastOut;
      tracked.lastIn = totalIn;
      tracked.lastOut = totalOut;
      if (rated) {
        tracked.rateIn = (totalIn - tracked.ratedIn) / seconds;
        tracked.rateOut = (totalOut - tracked.ratedOut) / seconds;
        tracked.ratedIn = totalIn;
        tracked.ratedOut = totalOut;
      }
      let bucket = tracked.buckets.at(-1);
      if (bucket?.minute !== minute) {
        bucket = { minute, in: 0, out: 0, connections: 0 };
        tracked.buckets.push(bucket);
        while ((tracked.buckets[0]?.minute ?? minute) <= minute - DAY_MINUTES * MINUTE)
          tracked.buckets.shift();
      }
      bucket.in += gainedIn;
      bucket.out += gainedOut;
      bucket.connections = Math.max(bucket.connections, counts.connections.value);
      if (store) report(store, appId, tracked, { minute, in: gainedIn, out: gainedOut, bucket });
    }
  }

  const timer = setInterval(sample, SAMPLE_MS);
  timer.unref();

  return {
    sample,
    async rates(appId) {
      if (store) return { ...(await store.rates(appId)) };
      const tracked = apps.get(appId);
      return { in: tracked?.rateIn ?? 0, out: tracked?.rateOut ?? 0 };
    },
    async series(appId, now = Date.now()) {
      const buckets = store
        ? await store.minutes(appId, now - (DAY_MINUTES - 1) * MINUTE, now)
        : (apps.get(appId)?.buckets ?? []);
      return { hour: stepped(buckets, now, 1, 60), day: stepped(buckets, now, 15, DAY_MINUTES / 15) };
    },
    stop: () => clearInterval(timer),
  };
}

/** Adds an app's sample to the store, unless it and the one before it were all zeros (an idle app costs nothing). */
function report(
  store: UsageStore,
  appId: string,
  tracked: Tracked,
  gained: { readonly minute: number; readonly in: number; readonly out: number; readonly bucket: Bucket },
): void {
  const quiet =
    gained.in === 0 &&
    gained.out === 0 &&
    gained.bucket.connections === 0 &&
    tracked.rateIn === 0 &&
    tracked.rateOut === 0;
  if (quiet && tracked.quiet) return;
  tracked.quiet = quiet;
  store.record(appId, {
    minute: gained.minute,
    in: gained.in,
    out: gained.out,
    peakConnections: gained.bucket.connections,
    rateIn: tracked.rateIn,
    rateOut: tracked.rateOut,
  });
}

/** `steps` points of `minutes` each, ending with the current one; empty steps count zero. */
function stepped(buckets: readonly UsageMinute[], now: number, minutes: number, steps: number): UsageSeries {
  const size = minutes * MINUTE;
  const last = Math.floor(now / size) * size;
  const first = last - (steps - 1) * size;
  const series: UsageSeries = { t: [], in: [], out: [], connections: [] };
  for (let i = 0; i < steps; i++) {
    series.t.push((first + i * size) / 1000);
    series.in.push(0);
    series.out.push(0);
    series.connections.push(0);
  }
  for (const bucket of buckets) {
    const index = Math.floor((bucket.minute - first) / size);
    if (index < 0 || index >= steps) continue;
    (series.in[index] as number) += bucket.in;
    (series.out[index] as number) += bucket.out;
    series.connections[index] = Math.max(series.connections[index] as number, bucket.connections);
  }
  return series;
}
