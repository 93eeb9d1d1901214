// The server alone keeps history in memory: per channel a log bounded in events and age, per app a byte cap over
// all its channels (the oldest events of the app go first). Serials restart with the process; each channel log gets
// an epoch of this process's life, so a position from an earlier life (or from a log that was dropped) is told
// apart from one of this log.

import { randomBytes } from 'node:crypto';
import type { RecoveryFailureReason } from '@herald/protocol-core';
import type { ChannelHistory, HistoryLimits, HistoryRead } from './types.js';

/** Options of {@link createMemoryHistory}. */
export interface MemoryHistoryOptions {
  /** Bytes of frames one app may hold across its channels; past it the app's oldest events are dropped. */
  readonly maxBytesPerApp?: number;
  /** Milliseconds between sweeps that drop aged events and empty channel logs. Default 10 000. */
  readonly sweepEveryMs?: number;
  /** The clock, in ms. Default `Date.now`. */
  readonly now?: () => number;
}

/** The default byte cap per app: 32 MiB of frames. */
export const DEFAULT_HISTORY_BYTES_PER_APP = 32 * 1024 * 1024;

interface Entry {
  readonly serial: number;
  readonly frame: string;
  readonly at: number;
  readonly bytes: number;
  readonly log: ChannelLog;
  dropped: boolean;
}

interface ChannelLog {
  readonly epoch: string;
  last: number;
  readonly entries: Entry[];
  /** Index of the oldest entry still held (entries before it are dropped, compacted now and then). */
  head: number;
  /** Why the newest dropped entry went; what a read reaching before the head is told. */
  droppedBy: RecoveryFailureReason | undefined;
  lastTouched: number;
  maxAgeMs: number;
}

interface AppLog {
  readonly channels: Map<string, ChannelLog>;
  /** Every held entry of the app in append order (dropped ones skipped lazily): the byte cap drops from the front. */
  order: Entry[];
  orderHead: number;
  /** Entries held (not dropped), to know when `order` is mostly dropped ones and worth rebuilding. */
  held: number;
  bytes: number;
}

/** A {@link ChannelHistory} held in this process: answers at once. */
export function createMemoryHistory(options: MemoryHistoryOptions = {}): ChannelHistory {
  const maxBytes = options.maxBytesPerApp ?? DEFAULT_HISTORY_BYTES_PER_APP;
  const now = options.now ?? Date.now;
  // This life's prefix: an epoch with another prefix is from before a restart.
  const life = randomBytes(4).toString('hex');
  let generation = 0;
  const apps = new Map<string, AppLog>();

  function appLog(appId: string): AppLog {
    let app = apps.get(appId);
    if (!app) {
      app = { channels: new Map(), order: [], orderHead: 0, held: 0, bytes: 0 };
      apps.set(appId, app);
    }
    return app;
  }

  function channelLog(appId: string, channel: string, limits: HistoryLimits): ChannelLog {
    const app = appLog(appId);
    let log = app.channels.get(channel);
    if (!log) {
      generation += 1;
      log = {
        epoch: `${life}.${generation.toString(36)}`,
        last: 0,
        entries: [],
        head: 0,
        droppedBy: undefined,
        lastTouched: now(),
        maxAgeMs: limits.maxAgeMs,
      };
      app.channels.set(channel, log);
    }
    log.maxAgeMs = limits.maxAgeMs;
    return log;
  }

  function dropHead(app: AppLog, log: ChannelLog, reason: RecoveryFailureReason): void {
    const entry = log.entries[log.head];
    if (!entry) return;
    entry.dropped = true;
    app.bytes -= entry.bytes;
    app.held -= 1;
    log.head += 1;
    log.droppedBy = reason;
    if (log.head >= 64 && log.head * 2 >= log.entries.length) {
      log.entries.splice(0, log.head);
      log.head = 0;
    }
  }

  function dropAged(app: AppLog, log: ChannelLog, at: number): void {
    const oldest = at - log.maxAgeMs;
    for (let entry = log.entries[log.head]; entry && entry.at < oldest; entry = log.entries[log.head]) {
      dropHead(app, log, 'expired');
    }
  }

  function enforceByteCap(app: AppLog): void {
    while (app.bytes > maxBytes && app.orderHead < app.order.length) {
      const entry = app.order[app.orderHead] as Entry;
      app.orderHead += 1;
      // Per channel the append order is the app's order, so a held entry here is its log's oldest.
      if (!entry.dropped) dropHead(app, entry.log, 'trimmed');
    }
    compactOrder(app);
  }

  function compactOrder(app: AppLog): void {
    while (app.orderHead < app.order.length && (app.order[app.orderHead] as Entry).dropped)
      app.orderHead += 1;
    // Dropped entries behind a long-held one (a quiet channel's) would otherwise pile up: rebuild once they are
    // most of the queue, which keeps the work per append constant on average.
    if (app.order.length > 2 * app.held + 1024) {
      app.order = app.order.slice(app.orderHead).filter((entry) => !entry.dropped);
      app.orderHead = 0;
    }
  }

  function failure(log: ChannelLog, reason: RecoveryFailureReason): HistoryRead {
    const first = log.entries[log.head];
    return {
      ok: false,
      failure: { reason, firstSerial: first ? first.serial : null },
      position: { serial: log.last, epoch: log.epoch },
    };
  }

  function sweep(): void {
    const at = now();
    for (const app of apps.values()) {
      for (const [channel, log] of app.channels) {
        dropAged(app, log, at);
        if (log.head >= log.entries.length && at - log.lastTouched > log.maxAgeMs)
          app.channels.delete(channel);
      }
      compactOrder(app);
    }
  }

  const timer = setInterval(sweep, options.sweepEveryMs ?? 10_000);
  timer.unref();

  return {
    append(appId, channel, encode, limits) {
      const app = appLog(appId);
      const log = channelLog(appId, channel, limits);
      const at = now();
      log.last += 1;
      log.lastTouched = at;
      const frame = encode({ serial: log.last, epoch: log.epoch });
      // The encoder builds a rope; kept for minutes, every piece of it would be promoted and marked by the GC. Reading
      // a character flattens it now, while the pieces are young: a third of the added CPU per event
      // (bench/history-cost.mjs, 100 channels).
      frame.charCodeAt(0);
      // Frames are ASCII-heavy JSON: length * 2 bounds UTF-16 memory without measuring UTF-8 per event.
      const entry: Entry = { serial: log.last, frame, at, bytes: frame.length * 2, log, dropped: false };
      log.entries.push(entry);
      app.order.push(entry);
      app.bytes += entry.bytes;
      app.held += 1;
      dropAged(app, log, at);
      while (log.entries.length - log.head > limits.maxEvents) dropHead(app, log, 'trimmed');
      if (app.bytes > maxBytes) enforceByteCap(app);
      else if (app.order.length > 2 * app.held + 1024) compactOrder(app);
      return frame;
    },
    position(appId, channel, limits) {
      const log = channelLog(appId, channel, limits);
      log.lastTouched = now();
      return { serial: log.last, epoch: log.epoch };
    },
    read(appId, channel, after, limits) {
      const app = appLog(appId);
      const log = channelLog(appId, channel, limits);
      const at = now();
      log.lastTouched = at;
      dropAged(app, log, at);
      if (after.epoch !== log.epoch) {
        // A log of this life that is gone was dropped once it aged out; any other epoch is from an earlier life.
        return failure(log, after.epoch.startsWith(`${life}.`) ? 'expired' : 'restarted');
      }
      if (after.serial > log.last) return failure(log, 'restarted');
      const first = log.entries[log.head]?.serial ?? log.last + 1;
      if (after.serial + 1 < first) return failure(log, log.droppedBy ?? 'trimmed');
      const frames: string[] = [];
      for (let i = log.head + (after.serial + 1 - first); i < log.entries.length; i += 1) {
        frames.push((log.entries[i] as Entry).frame);
      }
      return { ok: true, frames };
    },
    list(appId, channel, query, limits) {
      const app = appLog(appId);
      const log = channelLog(appId, channel, limits);
      dropAged(app, log, now());
      const held = log.entries.length - log.head;
      const first = held > 0 ? (log.entries[log.head] as Entry).serial : null;
      const position = { serial: log.last, epoch: log.epoch };
      if (first === null) return { position, firstSerial: null, frames: [] };
      // Serials in a log are consecutive from its head: the first one wanted is found by arithmetic.
      const start = log.head + Math.max(0, query.afterSerial + 1 - first);
      const end = Math.min(log.entries.length, start + query.limit);
      const frames: string[] = [];
      for (let i = start; i < end; i += 1) frames.push((log.entries[i] as Entry).frame);
      return { position, firstSerial: first, frames };
    },
    size(appId) {
      const app = apps.get(appId);
      return { events: app?.held ?? 0, bytes: app?.bytes ?? 0 };
    },
    forget(appId) {
      apps.delete(appId);
    },
    close() {
      clearInterval(timer);
    },
  };
}
