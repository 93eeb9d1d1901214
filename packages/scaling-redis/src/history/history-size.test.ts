import { describe, expect, it } from 'vitest';
import type { MasterLink } from '../internal/connection.js';
import {
  appOfHistoryKey,
  createSizeCache,
  measureHistorySizes,
  type RedisHistorySize,
} from './history-size.js';

describe('appOfHistoryKey', () => {
  it('takes what comes before the channel, whatever the app id holds', () => {
    expect(appOfHistoryKey('shop:orders')).toBe('shop');
    expect(appOfHistoryKey('eu:shop:private-orders.42')).toBe('eu:shop');
    expect(appOfHistoryKey('shop:#server-to-user-a:b')).toBe('shop');
  });
});

/** A master holding the given streams (`key → [length, bytes]`), answering SCAN two keys a page. */
function fakeMaster(streams: Record<string, readonly [number, number]>, sent: string[][] = []): MasterLink {
  const keys = Object.keys(streams);
  return {
    address: '',
    async send(args) {
      sent.push([...args]);
      const [command, key] = args;
      if (command === 'SCAN') {
        const at = Number(key);
        const pattern = new RegExp(`^${(args[3] as string).replace(/[{}]/g, '\\$&').replace('*', '.*')}$`);
        const next = at + 2 >= keys.length ? '0' : String(at + 2);
        return [next, keys.slice(at, at + 2).filter((each) => pattern.test(each))];
      }
      if (command !== 'EVAL') throw new Error(`unexpected ${command}`);
      // Keys (declared or in ARGV): stream, hash, stream, hash, …; answers length, bytes, length, bytes, …
      const declared = args.slice(3);
      return declared.map((each, i) =>
        i % 2 === 0 ? (streams[each]?.[0] ?? 0) : String(streams[each.replace(/m$/, 's')]?.[1] ?? 0),
      );
    },
  };
}

describe('measureHistorySizes', () => {
  it('adds up each app’s streams over every master, and counts an emptied stream as nothing', async () => {
    const one = fakeMaster({
      'h:{hist:shop:a}:s': [3, 300],
      'h:{hist:shop:b}:s': [2, 150],
      'h:{hist:blog:a}:s': [1, 40],
      'h:{hist:shop:c}:s': [0, 99],
      'other:{hist:shop:a}:s': [7, 700],
    });
    const two = fakeMaster({ 'h:{hist:shop:d}:s': [5, 500] });
    const sizes = await measureHistorySizes([one, two], 'h:', { clusterMode: true });
    expect(Object.fromEntries(sizes)).toEqual({
      shop: { events: 10, bytes: 950 },
      blog: { events: 1, bytes: 40 },
    });
  });

  it('escapes the prefix’s glob characters in the pattern', async () => {
    const sent: string[][] = [];
    await measureHistorySizes([fakeMaster({}, sent)], 'a*b:', { clusterMode: false });
    expect(sent[0]?.[3]).toBe('a\\*b:{hist:*}:s');
  });
});

describe('createSizeCache', () => {
  function measures() {
    let calls = 0;
    const pending: Array<(sizes: ReadonlyMap<string, RedisHistorySize>) => void> = [];
    return {
      get calls() {
        return calls;
      },
      measure: () => {
        calls += 1;
        return new Promise<ReadonlyMap<string, RedisHistorySize>>((resolve) => pending.push(resolve));
      },
      finish: (events: number) => pending.shift()?.(new Map([['shop', { events, bytes: events * 10 }]])),
    };
  }

  it('measures once for every call until the figures are older than cacheMs', async () => {
    let clock = 0;
    const source = measures();
    const cache = createSizeCache(source.measure, {
      cacheMs: 1000,
      waitMs: 50,
      failed: () => {},
      now: () => clock,
    });
    const first = cache.size('shop');
    source.finish(1);
    expect(await first).toEqual({ events: 1, bytes: 10 });
    clock = 999;
    expect(await cache.size('shop')).toEqual({ events: 1, bytes: 10 });
    expect(await cache.size('blog')).toEqual({ events: 0, bytes: 0 });
    expect(source.calls).toBe(1);
    clock = 1000;
    const second = cache.size('shop');
    source.finish(2);
    expect(await second).toEqual({ events: 2, bytes: 20 });
    expect(source.calls).toBe(2);
  });

  it('answers the previous figures (none at first) once a measure outlasts waitMs, and the new ones after', async () => {
    let clock = 0;
    const source = measures();
    const cache = createSizeCache(source.measure, {
      cacheMs: 0,
      waitMs: 20,
      failed: () => {},
      now: () => clock,
    });
    expect(await cache.size('shop')).toBeUndefined();
    // Past the measure's wait: later calls of the same scrape do not wait again.
    clock = 20;
    expect(await cache.size('shop')).toBeUndefined();
    expect(source.calls).toBe(1);
    source.finish(3);
    await new Promise((resolve) => setImmediate(resolve));
    // The next scrape measures again; the measure outlasts its wait, so it answers the figures just measured.
    clock = 40;
    const next = cache.size('shop');
    expect(source.calls).toBe(2);
    expect(await next).toEqual({ events: 3, bytes: 30 });
  });

  it('drops the figures and reports when a measure fails', async () => {
    const errors: unknown[] = [];
    let fail = false;
    const cache = createSizeCache(
      async () => {
        if (fail) throw new Error('no redis');
        return new Map([['shop', { events: 1, bytes: 1 }]]);
      },
      { cacheMs: 0, waitMs: 1000, failed: (error) => errors.push(error) },
    );
    expect(await cache.size('shop')).toEqual({ events: 1, bytes: 1 });
    fail = true;
    expect(await cache.size('shop')).toBeUndefined();
    expect(errors).toEqual([new Error('no redis')]);
  });
});
