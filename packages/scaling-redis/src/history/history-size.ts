// What `/metrics` shows of the Redis history: per app, the events and bytes its channels hold, the same on every node
// and counting every master of a Redis Cluster.
//
// Why a walk at scrape time rather than a counter per app: a channel's keys live on the channel's slot, and the append
// script may only touch keys of that slot, so a per-app total kept by the script is impossible on a Redis Cluster
// (and a second command per event to keep one elsewhere would cost every publish a round trip). The script already
// keeps, per channel, the bytes it holds (the `bytes` field of the channel's hash, which trimming lowers); the stream's
// length is its event count. So a measure walks each master with `SCAN MATCH <prefix>{hist:*}:s` (only channels
// holding frames have a stream: idle ones have expired) and reads each stream's `XLEN` and its hash's `bytes` with one
// read-only script per page (one command, not two per channel: the node's CPU for a measure of 10 000 channels went
// from 0.5 s to a few tens of ms). The publish path pays nothing for it; a measure's work grows with the keys of
// the Redis (SCAN visits every key to match) and the channels holding history, so it runs at most once per
// `cacheMs`, one at a time, and a scrape waits for it at most `waitMs`, answering the previous figures meanwhile.
// Measured with 10 000 channels holding history: see the package README (test/measure-history-size.mjs).
//
// What the figures leave out: events past the app's max age that no append or read has trimmed yet count until the
// channel's next append or read, or until the stream's own expiry (the app's max age after its last event).

import type { MasterLink } from '../internal/connection.js';

/** What an app's history holds across the cluster: events, and bytes of their frames (UTF-8). */
export interface RedisHistorySize {
  readonly events: number;
  readonly bytes: number;
}

const NONE: RedisHistorySize = { events: 0, bytes: 0 };
const GLOB = /[*?[\]\\]/g;

/** `text` as a SCAN MATCH pattern that matches it literally. */
export const escapeGlob = (text: string) => text.replace(GLOB, '\\$&');
// Channel names hold no ':' (Pusher's alphabet), except `#server-to-user-<user id>`, whose user id may: the app id is
// what comes before the channel.
const PERSONAL = ':#server-to-user-';

/** The app a history key body `<app>:<channel>` belongs to. */
export function appOfHistoryKey(body: string): string {
  const personal = body.indexOf(PERSONAL);
  return body.slice(0, personal >= 0 ? personal : body.lastIndexOf(':'));
}

// Per stream of a page (stream, hash, stream, hash, …) its length and its hash's byte count. A page's keys span slots,
// all on the master that answered the SCAN. A Redis Cluster refuses declared keys of several slots (CROSSSLOT) even
// then, but runs a script flagged `allow-cross-slot-keys` (Redis 7) that names them in ARGV, as long as this master
// serves them (a slot moving meanwhile fails that measure; the next one goes on). A single Redis (no flags before
// Redis 7) takes them as declared keys.
const READ_PAGE = `local names = #KEYS > 0 and KEYS or ARGV
local out = {}
for i = 1, #names, 2 do
  out[#out + 1] = redis.call('XLEN', names[i])
  out[#out + 1] = redis.call('HGET', names[i + 1], 'bytes') or '0'
end
return out`;
const READ_PAGE_ACROSS_SLOTS = `#!lua flags=no-writes,allow-cross-slot-keys\n${READ_PAGE}`;

/** Options of {@link measureHistorySizes}. */
export interface MeasureOptions {
  /** The masters are a Redis Cluster's: the page script names its keys in ARGV, flagged `allow-cross-slot-keys`. */
  readonly clusterMode: boolean;
  /** Keys SCAN visits per call (500: the script of a page holds Redis a few ms at most). */
  readonly pageSize?: number;
}

/**
 * Measures every app's history at once: on each master, `SCAN` for the history streams under `prefix`, then per page
 * of streams found their lengths and their hashes' byte counts, in one script.
 */
export async function measureHistorySizes(
  masters: readonly MasterLink[],
  prefix: string,
  { clusterMode, pageSize = 500 }: MeasureOptions,
): Promise<Map<string, RedisHistorySize>> {
  const readPage = clusterMode ? READ_PAGE_ACROSS_SLOTS : READ_PAGE;
  const head = `${prefix}{hist:`;
  const pattern = `${escapeGlob(prefix)}{hist:*}:s`;
  const sizes = new Map<string, RedisHistorySize>();
  const add = (stream: string, events: number, bytes: number) => {
    const app = appOfHistoryKey(stream.slice(head.length, -'}:s'.length));
    const held = sizes.get(app) ?? NONE;
    sizes.set(app, { events: held.events + events, bytes: held.bytes + bytes });
  };
  // Masters in parallel (each walks its own keys); pages one after another on each, so a measure never floods one.
  await Promise.all(
    masters.map(async (master) => {
      let cursor = '0';
      do {
        const [next, streams] = (await master.send([
          'SCAN',
          cursor,
          'MATCH',
          pattern,
          'COUNT',
          String(pageSize),
        ])) as [string, string[]];
        if (streams.length > 0) {
          const keys = streams.flatMap((stream) => [stream, `${stream.slice(0, -1)}m`]);
          const declared = clusterMode ? '0' : String(keys.length);
          const read = (await master.send(['EVAL', readPage, declared, ...keys])) as unknown[];
          streams.forEach((stream, i) => {
            const events = Number(read[2 * i]);
            // An emptied stream (trimmed to nothing) holds no bytes, whatever a stale count says.
            if (events > 0) add(stream, events, Number(read[2 * i + 1]));
          });
        }
        cursor = String(next);
      } while (cursor !== '0');
    }),
  );
  return sizes;
}

/** Options of {@link createSizeCache}. */
export interface SizeCacheOptions {
  /** How long a measure's figures are answered before the next call measures again. */
  readonly cacheMs: number;
  /** How long a call waits for a measure under way before answering the previous figures (none before the first). */
  readonly waitMs: number;
  /** Told why a measure failed; the figures are then dropped until one succeeds. */
  readonly failed: (error: unknown) => void;
  /** The clock, in ms. Default `Date.now`. */
  readonly now?: () => number;
}

/** Sizes answered from the last measure of every app; one measure at a time, at most one per `cacheMs`. */
export interface SizeCache {
  /** The app's figures (zeros for an app holding nothing), or undefined while none could be measured yet. */
  size(appId: string): Promise<RedisHistorySize | undefined>;
}

/** Makes a {@link SizeCache} over `measure`. */
export function createSizeCache(
  measure: () => Promise<ReadonlyMap<string, RedisHistorySize>>,
  options: SizeCacheOptions,
): SizeCache {
  const now = options.now ?? Date.now;
  let last: { readonly at: number; readonly sizes: ReadonlyMap<string, RedisHistorySize> } | undefined;
  let running: { readonly done: Promise<void>; readonly waitUntil: number } | undefined;

  function start(): void {
    const at = now();
    const done = measure()
      .then(
        (sizes) => {
          last = { at, sizes };
        },
        (error: unknown) => {
          // Figures of a Redis that cannot be read now would be shown as current: none is better.
          last = undefined;
          options.failed(error);
        },
      )
      .finally(() => {
        running = undefined;
      });
    running = { done, waitUntil: at + options.waitMs };
  }

  return {
    async size(appId) {
      if (!running && (!last || now() - last.at >= options.cacheMs)) start();
      const waiting = running;
      const left = waiting ? waiting.waitUntil - now() : 0;
      if (waiting && left > 0) {
        // Every call of one scrape (two gauges, each app) shares the measure's deadline: a scrape waits `waitMs` at
        // most in all.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          void waiting.done.then(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return last ? (last.sizes.get(appId) ?? NONE) : undefined;
    },
  };
}
