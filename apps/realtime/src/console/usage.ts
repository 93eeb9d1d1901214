// Usage an operator console charts: messages in and out, and connections, per minute over the last day, sampled
// from the plain per-app counts the server keeps for its metrics (nothing is added to the socket paths).

import type { RealtimeServer } from '@herald/realtime-server';

const MINUTE = 60_000;
const DAY_MINUTES = 24 * 60;
/** How often the counts are read; also the window of the messages-per-second rates. */
export const SAMPLE_MS = 5_000;

/** One minute of an app's usage. */
interface Bucket {
  readonly minute: number;
  in: number;
  out: number;
  /** The most connections seen open in the minute. */
  connections: number;
}

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
  series(appId: string, now?: number): { hour: UsageSeries; day: UsageSeries };
  /** Messages per second in and out over the last sample window. */
  rates(appId: string): { in: number; out: number };
  /** Reads the counts now (the timer does so every {@link SAMPLE_MS}). */
  sample(now?: number): void;
  stop(): void;
}

interface Tracked {
  lastIn: number;
  lastOut: number;
  rateIn: number;
  rateOut: number;
  readonly buckets: Bucket[];
}

export function createUsage(server: Pick<RealtimeServer, 'metrics'>, appIds: () => readonly string[]): Usage {
  const apps = new Map<string, Tracked>();
  let lastSample = Date.now();

  function sample(now = Date.now()): void {
    const seconds = (now - lastSample) / 1000;
    // A read on demand (a console opening its charts) right after the timer's keeps the last rates.
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
        tracked = { lastIn: totalIn, lastOut: totalOut, rateIn: 0, rateOut: 0, buckets: [] };
        apps.set(appId, tracked);
      }
      const gainedIn = totalIn - tracked.lastIn;
      const gainedOut = totalOut - tracked.lastOut;
      tracked.lastIn = totalIn;
      tracked.lastOut = totalOut;
      if (rated) {
        tracked.rateIn = gainedIn / seconds;
        tracked.rateOut = gainedOut / seconds;
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
    }
  }

  const timer = setInterval(sample, SAMPLE_MS);
  timer.unref();

  return {
    sample,
    rates(appId) {
      const tracked = apps.get(appId);
      return { in: tracked?.rateIn ?? 0, out: tracked?.rateOut ?? 0 };
    },
    series(appId, now = Date.now()) {
      const buckets = apps.get(appId)?.buckets ?? [];
      return { hour: stepped(buckets, now, 1, 60), day: stepped(buckets, now, 15, DAY_MINUTES / 15) };
    },
    stop: () => clearInterval(timer),
  };
}

/** `steps` points of `minutes` each, ending with the current one; empty steps count zero. */
function stepped(buckets: readonly Bucket[], now: number, minutes: number, steps: number): UsageSeries {
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
