import type { Logger } from './logger.js';
import type { AppStoreMetrics } from './metrics.js';
import type { TableNames } from './migration.js';

/** Options of {@link createOutage}. */
export interface OutageOptions {
  readonly names: TableNames;
  readonly logger: Logger;
  readonly metrics: AppStoreMetrics | undefined;
  /** First retry delay in ms; it doubles up to `maxDelayMs` while the database stays away. */
  readonly firstDelayMs: number;
  readonly maxDelayMs: number;
  /** Tries the database again (the watcher's LISTEN and full read). */
  retry(): void;
}

/** Whether the database is away while watching, and when the next attempt to reach it is made. */
export interface Outage {
  /** True from a loss until the first full read after it. */
  readonly down: boolean;
  /** The wait before the attempt after next, in ms (what a failed attempt reports). */
  readonly nextDelayMs: number;
  /** The database was lost: said and counted once per outage; another attempt is scheduled with backoff. */
  begin(error: unknown): void;
  /** An attempt got through and everything was re-read: the backoff starts over; said and counted if it was down. */
  end(apps: number): void;
  close(): void;
}

/** Creates the outage bookkeeping of a watching store. */
export function createOutage(options: OutageOptions): Outage {
  const { names, logger, metrics } = options;
  let down = false;
  let delay = options.firstDelayMs;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  function scheduleRetry(): void {
    if (timer || closed) return;
    timer = setTimeout(() => {
      timer = undefined;
      options.retry();
    }, delay);
    timer.unref();
    delay = Math.min(options.maxDelayMs, delay * 2);
  }

  return {
    get down() {
      return down;
    },
    get nextDelayMs() {
      return delay;
    },
    begin(error) {
      if (!down) {
        down = true;
        logger.warn('app store unreachable: serving the known apps from memory', {
          scope: 'app_store',
          table: `${names.schema}.${names.table}`,
          error,
        });
        metrics?.outage();
      }
      scheduleRetry();
    },
    end(apps) {
      delay = options.firstDelayMs;
      if (!down) return;
      down = false;
      logger.info('app store reachable again: every app re-read', { scope: 'app_store', apps });
      metrics?.restored();
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
    },
  };
}
