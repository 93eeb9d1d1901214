import { ServerMetrics } from '@herald/realtime-server';
import { afterEach, describe, expect, it } from 'vitest';
import { createUsage, type Usage, type UsageMinute, type UsageSample, type UsageStore } from './usage.js';

const MINUTE = 60_000;
/** A minute's start after today, so the first sample is a rated one (the sampler started at the real now). */
const T0 = 40_000_000 * MINUTE;

/** A store that keeps what it is given, adding samples up per minute as the Redis one does. */
function memoryStore() {
  const samples: Array<{ appId: string; sample: UsageSample }> = [];
  const store: UsageStore = {
    record: (appId, sample) => samples.push({ appId, sample }),
    async minutes(appId, from, to) {
      const minutes = new Map<number, UsageMinute>();
      for (const { sample } of samples.filter((each) => each.appId === appId)) {
        if (sample.minute < from - MINUTE || sample.minute > to) continue;
        const before = minutes.get(sample.minute) ?? { minute: sample.minute, in: 0, out: 0, connections: 0 };
        minutes.set(sample.minute, {
          minute: sample.minute,
          in: before.in + sample.in,
          out: before.out + sample.out,
          connections: sample.peakConnections,
        });
      }
      return [...minutes.values()];
    },
    rates: async () => ({ in: 7, out: 9 }),
  };
  return { store, samples };
}

describe('createUsage', () => {
  let usage: Usage | undefined;
  afterEach(() => usage?.stop());

  it('counts from zero, so messages before the first sample are in the chart', async () => {
    const metrics = new ServerMetrics({ processMetrics: false });
    metrics.forHttp('shop').calls.inc(3);
    metrics.forApp('shop').sent.inc(5);
    usage = createUsage({ metrics }, () => ['shop']);
    usage.sample(T0 + 10_000);
    const { hour } = await usage.series('shop', T0 + 10_000);
    expect([hour.in.at(-1), hour.out.at(-1)]).toEqual([3, 5]);
  });

  it('adds each sample to a store and reads series and rates from it, leaving out an idle app after one zero', async () => {
    const metrics = new ServerMetrics({ processMetrics: false });
    const { store, samples } = memoryStore();
    usage = createUsage({ metrics }, () => ['shop', 'idle'], store);
    metrics.forHttp('shop').calls.inc(2);
    metrics.forApp('shop').connections.inc(4);
    usage.sample(T0 + 5_000);
    metrics.forHttp('shop').calls.inc(1);
    usage.sample(T0 + MINUTE);
    usage.sample(T0 + MINUTE + 5_000);
    expect(samples.filter((each) => each.appId === 'idle')).toHaveLength(1);
    expect(samples.filter((each) => each.appId === 'shop').map((each) => each.sample)).toMatchObject([
      { minute: T0, in: 2, out: 0, peakConnections: 4 },
      { minute: T0 + MINUTE, in: 1, peakConnections: 4 },
      { minute: T0 + MINUTE, in: 0, peakConnections: 4 },
    ]);
    const { hour, day } = await usage.series('shop', T0 + MINUTE + 5_000);
    expect(hour.in.slice(-2)).toEqual([2, 1]);
    expect(hour.connections.slice(-2)).toEqual([4, 4]);
    expect(day.in.at(-1)).toBe(3);
    // The rates are the store's (the cluster's), not this node's own.
    expect(await usage.rates('shop')).toEqual({ in: 7, out: 9 });
  });
});
