// The channel history of a cluster in Redis Streams: serials are assigned once for the whole cluster (by the append
// script, in Redis), and any node replays any channel. The shapes below are those of the server's history port
// (`ChannelHistory` of @herald/realtime-server), declared here because adapters never import the packages they
// serve; apps/realtime hands this store to the server.

import { randomBytes } from 'node:crypto';
import type { HistoryPosition, RecoveryFailure, RecoveryFailureReason } from '@herald/protocol-core';
import { createCommandLink } from '../internal/command-link.js';
import type { RedisLink } from '../internal/connection.js';
import { runScript } from '../internal/scripts.js';
import { type Logger, silentLogger } from '../logger.js';
import type { RedisServerOptions } from '../redis-options.js';
import { fillTemplate, frameTemplate } from './frame-template.js';
import { appendScript, listScript, positionScript, readScript } from './history-scripts.js';
import { createSizeCache, escapeGlob, measureHistorySizes, type RedisHistorySize } from './history-size.js';

/** An app's history bounds (the `HistoryLimits` of the server's port). */
export interface RedisHistoryLimits {
  readonly maxEvents: number;
  readonly maxAgeMs: number;
}

/** A replay read's answer (the `HistoryRead` of the server's port). */
export type RedisHistoryRead =
  | { readonly ok: true; readonly frames: readonly string[] }
  | { readonly ok: false; readonly failure: RecoveryFailure; readonly position: HistoryPosition };

/** A page of a channel's kept events (the `HistoryList` of the server's port). */
export interface RedisHistoryList {
  readonly position: HistoryPosition;
  readonly firstSerial: number | null;
  readonly frames: readonly string[];
}

/** A channel history every node of a cluster shares; its answers are promises, resolved per channel in order. */
export interface RedisChannelHistory {
  /** Assigns the channel's next serial in Redis, keeps the frame (encoded once) and answers it. */
  append(
    appId: string,
    channel: string,
    encode: (position: HistoryPosition) => string,
    limits: RedisHistoryLimits,
  ): Promise<string>;
  /** The channel's last serial (0 before the first) and epoch. */
  position(appId: string, channel: string, limits: RedisHistoryLimits): Promise<HistoryPosition>;
  /** The frames after `after`, in order, or why history cannot reach back. */
  read(
    appId: string,
    channel: string,
    after: HistoryPosition,
    limits: RedisHistoryLimits,
  ): Promise<RedisHistoryRead>;
  /** Up to `limit` kept events with a serial above `afterSerial`, oldest first, with the position and first serial held. */
  list(
    appId: string,
    channel: string,
    query: { readonly afterSerial: number; readonly limit: number },
    limits: RedisHistoryLimits,
  ): Promise<RedisHistoryList>;
  /**
   * What the app's history holds across the cluster, for the `/metrics` gauges: measured on every master at most once
   * per `sizeCacheMs`, shared by every app; a call waits for a measure under way a second at most, and answers
   * undefined only while none has succeeded yet (or the last failed).
   */
  size(appId: string): Promise<RedisHistorySize | undefined>;
  /** Deletes an app's history (single Redis; on a Redis Cluster its keys run out by their expiry). */
  forget(appId: string): void;
  /** Resolves once connected. */
  ready(): Promise<void>;
  /** Closes the connection (once, however often called). */
  close(): Promise<void>;
}

/** Options of {@link createRedisHistory}: where Redis is, plus the history's own settings. */
export interface RedisHistoryOptions extends RedisServerOptions {
  /** Prepended to every key ('herald:' by default): a channel's keys are `<prefix>{hist:<app>:<channel>}:m|s`. */
  readonly keyPrefix?: string | undefined;
  /** Bytes of frames one channel may hold; past it its oldest events are dropped (`trimmed`). 4 MiB by default. */
  readonly maxBytesPerChannel?: number | undefined;
  /**
   * How long a channel's counter and epoch outlive its last event or subscription, in ms (24 h by default): a
   * position older than that is told `restarted`. The frames themselves expire with the app's max age.
   */
  readonly idleMs?: number | undefined;
  /**
   * How long, in ms, the measured history size (the `/metrics` gauges) is answered before the next scrape measures
   * again: a measure walks every master's keys (10 000 by default).
   */
  readonly sizeCacheMs?: number | undefined;
  readonly logger?: Logger | undefined;
}

/** The default byte cap per channel: 4 MiB of frames. */
export const DEFAULT_HISTORY_BYTES_PER_CHANNEL = 4 * 1024 * 1024;

// How long a scrape waits for a size measure under way before answering the previous figures.
const SIZE_WAIT_MS = 1000;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Creates the Redis history of a cluster: per channel a stream of frames with ids `<serial>-<ms>` and a hash with its
 * counter, epoch and byte count, both under the channel's hash tag, so on a Redis Cluster they live on the channel's
 * slot and one script updates them atomically. Trimmed by count, age and bytes on every append and read.
 * @example
 * ```ts
 * const history = createRedisHistory({ url: 'redis://127.0.0.1:6379', keyPrefix: 'herald:' });
 * const server = createRealtimeServer({ apps, cluster, history });
 * ```
 */
export function createRedisHistory(options: RedisHistoryOptions = {}): RedisChannelHistory {
  const logger = options.logger ?? silentLogger;
  const prefix = options.keyPrefix ?? 'herald:';
  const maxBytes = String(options.maxBytesPerChannel ?? DEFAULT_HISTORY_BYTES_PER_CHANNEL);
  const idleMs = options.idleMs ?? 24 * 60 * 60 * 1000;
  // Epochs are this store's random life id and a counter: unique across nodes without a random draw per event.
  const life = randomBytes(6).toString('hex');
  let generation = 0;
  const freshEpoch = () => {
    generation += 1;
    return `${life}.${generation.toString(36)}`;
  };
  const keys = (appId: string, channel: string) => {
    const tag = `${prefix}{hist:${appId}:${channel}}`;
    return [`${tag}:m`, `${tag}:s`] as const;
  };
  // The bounds every script but `position` trims by, and the meta key's expiry, in the scripts' argument order.
  const bounds = (limits: RedisHistoryLimits) => [
    String(limits.maxEvents),
    String(limits.maxAgeMs),
    maxBytes,
    String(limits.maxAgeMs + idleMs),
  ];

  const { link, connected, close } = createCommandLink(options, logger, {
    what: 'history',
    // On first use: a cluster whose apps keep no history never opens it.
    eager: false,
  });
  const run = async (lua: typeof appendScript, channelKeys: readonly string[], args: readonly string[]) => {
    // Connected: no await, so commands leave in the order they were asked (one connection per master keeps it).
    if (!link.ready()) await connected();
    return runScript(link, lua, channelKeys, args);
  };
  let closing: Promise<void> | undefined;
  let sizeFailing = false;
  const sizes = createSizeCache(
    async () => {
      if (!link.ready()) await connected();
      const measured = await measureHistorySizes(await link.masters(), prefix, {
        clusterMode: link.clusterMode,
      });
      sizeFailing = false;
      return measured;
    },
    {
      cacheMs: options.sizeCacheMs ?? 10_000,
      waitMs: SIZE_WAIT_MS,
      failed: (error) => {
        // Once per outage, and not for a measure cut short by close.
        if (sizeFailing || closing) return;
        sizeFailing = true;
        logger.warn('history: could not measure its size', { error: messageOf(error) });
      },
    },
  );

  return {
    async append(appId, channel, encode, limits) {
      const template = frameTemplate(encode);
      const reply = (await run(appendScript, keys(appId, channel), [
        freshEpoch(),
        ...bounds(limits),
        template.head,
        template.middle,
        template.tail,
      ])) as [number, string];
      return fillTemplate(template, { serial: Number(reply[0]), epoch: String(reply[1]) });
    },
    async position(appId, channel, limits) {
      const reply = (await run(positionScript, keys(appId, channel), [
        freshEpoch(),
        String(limits.maxAgeMs + idleMs),
      ])) as [number, string];
      return { serial: Number(reply[0]), epoch: String(reply[1]) };
    },
    async read(appId, channel, after, limits) {
      const reply = (await run(readScript, keys(appId, channel), [
        String(after.serial),
        after.epoch,
        freshEpoch(),
        ...bounds(limits),
      ])) as unknown[];
      if (Number(reply[0]) === 1) return { ok: true, frames: (reply[1] as unknown[]).map(String) };
      const first = Number(reply[2]);
      return {
        ok: false,
        failure: { reason: String(reply[1]) as RecoveryFailureReason, firstSerial: first < 0 ? null : first },
        position: { serial: Number(reply[3]), epoch: String(reply[4]) },
      };
    },
    async list(appId, channel, query, limits) {
      const reply = (await run(listScript, keys(appId, channel), [
        String(Math.max(0, Math.floor(query.afterSerial))),
        String(Math.max(1, Math.floor(query.limit))),
        freshEpoch(),
        ...bounds(limits),
      ])) as unknown[];
      const first = Number(reply[2]);
      return {
        position: { serial: Number(reply[0]), epoch: String(reply[1]) },
        firstSerial: first < 0 ? null : first,
        frames: (reply[3] as unknown[]).map(String),
      };
    },
    size: (appId) => sizes.size(appId),
    forget(appId) {
      if (link.clusterMode) return;
      forgetApp(link, `${escapeGlob(prefix)}{hist:${escapeGlob(appId)}:*`).catch((error: unknown) =>
        logger.warn('history: could not forget an app', { appId, error: messageOf(error) }),
      );
    },
    ready: () => connected(),
    close() {
      closing ??= close();
      return closing;
    },
  };
}

/** Deletes the keys matching `pattern` on a single Redis, a SCAN page at a time. */
async function forgetApp(link: RedisLink, pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, found] = (await link.send(undefined, [
      'SCAN',
      cursor,
      'MATCH',
      pattern,
      'COUNT',
      '500',
    ])) as [string, string[]];
    if (found.length > 0) await link.send(undefined, ['UNLINK', ...found]);
    cursor = String(next);
  } while (cursor !== '0');
}
