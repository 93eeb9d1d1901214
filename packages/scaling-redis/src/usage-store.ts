// Usage of a cluster for an operator console's charts: every node adds what it counted per app and minute, once per
// sample of its own counters (never per message), and any node reads the sums. Per app, under one hash tag (so on a
// Redis Cluster an app's keys share a slot and one script reads a day of them):
//
//   <prefix>{usage:<app>}:m:<minute>  hash  in, out (messages, summed by HINCRBY), c:<node> (the node's most
//                                           connections in the minute); expires a day and a half hour after it
//   <prefix>{usage:<app>}:now         hash  <node> → "<in/s> <out/s> <ms>": each node's latest rates and when (Redis
//                                           clock); an entry older than `staleMs` no longer counts and is removed

import { createCommandLink } from './internal/command-link.js';
import { NOW, runScript, script } from './internal/scripts.js';
import { type Logger, silentLogger } from './logger.js';
import type { RedisServerOptions } from './redis-options.js';

/** One node's sample of one app, as {@link RedisUsageStore.record} adds it. */
export interface RedisUsageSample {
  /** The minute counted into: its start, in ms since the epoch. */
  readonly minute: number;
  /** Messages in and out since the node's previous sample. */
  readonly in: number;
  readonly out: number;
  /** The most connections the node held in the minute so far. */
  readonly peakConnections: number;
  /** Messages per second in and out over the node's last sample window. */
  readonly rateIn: number;
  readonly rateOut: number;
}

/** One minute of an app's usage, summed over the nodes. */
export interface RedisUsageMinute {
  /** Its start, in ms since the epoch. */
  readonly minute: number;
  readonly in: number;
  readonly out: number;
  /** The sum of each node's most connections in the minute. */
  readonly connections: number;
}

/** Usage counters every node of a cluster adds to; close it after the last `record`. */
export interface RedisUsageStore {
  /** Adds one node's sample of an app (one script call, not awaited: a failure is logged and the sample lost). */
  record(appId: string, sample: RedisUsageSample): void;
  /** The minutes of an app from `from` to `to` (ms since the epoch, both included) that hold anything, oldest first. */
  minutes(appId: string, from: number, to: number): Promise<RedisUsageMinute[]>;
  /** Messages per second in and out of an app, summed over the nodes that reported within `staleMs`. */
  rates(appId: string): Promise<{ readonly in: number; readonly out: number }>;
  /** Resolves once connected. */
  ready(): Promise<void>;
  /** Removes this node's rates and closes the connection (once, however often called). */
  close(): Promise<void>;
}

/** Options of {@link createRedisUsage}: where Redis is, plus the store's own settings. */
export interface RedisUsageOptions extends RedisServerOptions {
  /** Prepended to every key ('herald:' by default). */
  readonly keyPrefix?: string | undefined;
  /** This node's id, unique in the cluster (the cluster adapter's `nodeId`). */
  readonly nodeId: string;
  /** How long a node's rates count after it reported them; 15000 ms by default (three 5-second samples). */
  readonly staleMs?: number | undefined;
  readonly logger?: Logger | undefined;
}

const MINUTE = 60_000;
/** A minute is kept a day and half an hour: a day's chart in 15-minute steps reaches back into its first step. */
const KEEP_MS = 24 * 60 * MINUTE + 30 * MINUTE;
/** The most minutes one read asks for (a day). */
const MAX_MINUTES = 24 * 60;

/** KEYS: minute hash, rates hash. ARGV: node, in, out, peak connections, keep ms, in/s, out/s, stale ms. */
const recordScript = script(`${NOW}
if tonumber(ARGV[2]) > 0 then redis.call('HINCRBY', KEYS[1], 'in', ARGV[2]) end
if tonumber(ARGV[3]) > 0 then redis.call('HINCRBY', KEYS[1], 'out', ARGV[3]) end
redis.call('HSET', KEYS[1], 'c:' .. ARGV[1], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[6] .. ' ' .. ARGV[7] .. ' ' .. now)
local all = redis.call('HGETALL', KEYS[2])
local edge = now - tonumber(ARGV[8])
for i = 1, #all, 2 do
  local at = tonumber(string.match(all[i + 1], '(%S+)$'))
  if (not at) or at < edge then redis.call('HDEL', KEYS[2], all[i]) end
end
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return 1`);

/** KEYS: minute hashes. Returns {position (1-based), in, out, connections} for each one that exists, flat. */
const minutesScript = script(`local out = {}
for i, key in ipairs(KEYS) do
  local h = redis.call('HGETALL', key)
  if #h > 0 then
    local sin, sout, conns = 0, 0, 0
    for j = 1, #h, 2 do
      local v = tonumber(h[j + 1]) or 0
      if h[j] == 'in' then sin = v
      elseif h[j] == 'out' then sout = v
      elseif string.sub(h[j], 1, 2) == 'c:' then conns = conns + v end
    end
    out[#out + 1] = i
    out[#out + 1] = sin
    out[#out + 1] = sout
    out[#out + 1] = conns
  end
end
return out`);

/** KEYS: rates hash. ARGV: stale ms. Returns {in/s, out/s} as text (Lua numbers would reach Redis as integers). */
const ratesScript = script(`${NOW}
local edge = now - tonumber(ARGV[1])
local sin, sout = 0, 0
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local rin, rout, at = string.match(all[i + 1], '^(%S+) (%S+) (%S+)$')
  if at and tonumber(at) >= edge then
    sin = sin + (tonumber(rin) or 0)
    sout = sout + (tonumber(rout) or 0)
  end
end
return {tostring(sin), tostring(sout)}`);

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Creates the usage store of a cluster: per app and minute a hash the nodes add their message counts and their most
 * connections to, and per app a hash of each node's latest rates, all under the app's `{usage:<app>}` hash tag.
 * @example
 * ```ts
 * const usage = createRedisUsage({ url: 'redis://127.0.0.1:6379', keyPrefix: 'herald:', nodeId: cluster.nodeId });
 * usage.record('app-1', { minute, in: 12, out: 40, peakConnections: 3, rateIn: 2.4, rateOut: 8 });
 * const lastHour = await usage.minutes('app-1', Date.now() - 3_600_000, Date.now());
 * ```
 */
export function createRedisUsage(options: RedisUsageOptions): RedisUsageStore {
  const logger = options.logger ?? silentLogger;
  const prefix = options.keyPrefix ?? 'herald:';
  const { nodeId } = options;
  const staleMs = String(options.staleMs ?? 15_000);
  const tag = (appId: string) => `${prefix}{usage:${appId}}`;
  const minuteKey = (appId: string, minute: number) => `${tag(appId)}:m:${Math.floor(minute / MINUTE)}`;
  const ratesKey = (appId: string) => `${tag(appId)}:now`;
  // The apps this node reported rates of, whose entries `close` removes.
  const reported = new Set<string>();

  const { link, connected, close } = createCommandLink(options, logger, { what: 'usage', eager: true });
  const run = async (lua: typeof recordScript, keys: readonly string[], args: readonly string[]) => {
    // Connected: no await, so a read sent after a record sees it (one connection per master keeps the order).
    if (!link.ready()) await connected();
    return runScript(link, lua, keys, args);
  };
  let closing: Promise<void> | undefined;

  return {
    record(appId, sample) {
      reported.add(appId);
      run(
        recordScript,
        [minuteKey(appId, sample.minute), ratesKey(appId)],
        [
          nodeId,
          String(Math.max(0, Math.round(sample.in))),
          String(Math.max(0, Math.round(sample.out))),
          String(Math.max(0, Math.round(sample.peakConnections))),
          String(KEEP_MS),
          String(sample.rateIn),
          String(sample.rateOut),
          staleMs,
        ],
      ).catch((error: unknown) =>
        logger.debug('usage: a sample was lost', { appId, nodeId, error: messageOf(error) }),
      );
    },

    async minutes(appId, from, to) {
      const first = Math.floor(from / MINUTE);
      const last = Math.floor(to / MINUTE);
      const count = Math.min(MAX_MINUTES, last - first + 1);
      if (count <= 0) return [];
      const start = last - count + 1;
      const keys = Array.from({ length: count }, (_, i) => minuteKey(appId, (start + i) * MINUTE));
      const flat = (await run(minutesScript, keys, [])) as unknown[];
      const minutes: RedisUsageMinute[] = [];
      for (let i = 0; i + 3 < flat.length; i += 4) {
        minutes.push({
          minute: (start + Number(flat[i]) - 1) * MINUTE,
          in: Number(flat[i + 1]),
          out: Number(flat[i + 2]),
          connections: Number(flat[i + 3]),
        });
      }
      return minutes;
    },

    async rates(appId) {
      const [rateIn, rateOut] = (await run(ratesScript, [ratesKey(appId)], [staleMs])) as unknown[];
      return { in: Number(rateIn) || 0, out: Number(rateOut) || 0 };
    },

    ready: () => connected(),

    close() {
      closing ??= (async () => {
        // Before the connection goes, so the other nodes stop counting this one's last rates at once.
        if (link.ready()) {
          await Promise.allSettled(
            [...reported].map((appId) => link.send(ratesKey(appId), ['HDEL', ratesKey(appId), nodeId])),
          );
        }
        await close();
      })();
      return closing;
    },
  };
}
