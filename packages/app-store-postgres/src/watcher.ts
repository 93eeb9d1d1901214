import { parseRow, type StoredApp } from './columns.js';
import type { Connection, ConnectionHooks } from './connection.js';
import { createHealthCheck } from './health-check.js';
import type { Logger } from './logger.js';
import type { AppStoreMetrics } from './metrics.js';
import type { TableNames } from './migration.js';
import { createOutage } from './outage.js';
import type { Row } from './row.js';
import { createSecretExpiry, type ExpiredSecrets, expiredSecretsOf } from './secret-expiry.js';

/** Options of {@link createWatcher}: the store's connection, and the timings of the store's options. */
export interface WatcherOptions {
  readonly connection: Connection;
  readonly names: TableNames;
  readonly logger: Logger;
  readonly metrics: AppStoreMetrics | undefined;
  readonly reconnectDelayMs: number;
  readonly maxReconnectDelayMs: number;
  readonly healthCheckMs: number;
  readonly healthTimeoutMs: number;
}

/** Reads the apps, and while anyone watches, keeps reading them as they change: the store's `AppStore` side. */
export interface Watcher extends ConnectionHooks {
  /** Reads every app (malformed rows skipped) and keeps them as the current list. */
  read(): Promise<readonly StoredApp[]>;
  watch(listener: (apps: readonly StoredApp[]) => void): () => void;
  current(): readonly StoredApp[];
  /** False while an outage lasts. */
  readonly connected: boolean;
  close(): void;
}

interface ReadRows {
  readonly apps: StoredApp[];
  readonly skipped: number;
  readonly expired: ExpiredSecrets[];
}

/** Parses every row read; a malformed one is skipped with a warning naming the app and the column. */
function parseRows(rows: readonly Row[], logger: Logger): ReadRows {
  const now = Date.now();
  const apps: StoredApp[] = [];
  const expired: ExpiredSecrets[] = [];
  let skipped = 0;
  for (const row of rows) {
    const parsed = parseRow(row, now);
    if (!parsed.ok) {
      skipped += 1;
      logger.warn('app row skipped', {
        scope: 'app_store',
        appId: parsed.error.appId,
        column: parsed.error.column,
        reason: parsed.error.message,
      });
      continue;
    }
    apps.push(parsed.value);
    const stale = expiredSecretsOf(row, parsed.value);
    if (stale) expired.push(stale);
  }
  return { apps, skipped, expired };
}

/**
 * Creates the watcher: the first `watch` LISTENs on the table's channel and reads everything; each notification
 * re-reads (bursts fold into one read), and after an outage everything is read again once the database answers.
 */
export function createWatcher(options: WatcherOptions): Watcher {
  const { connection, names, logger, metrics } = options;
  const listeners = new Set<(apps: readonly StoredApp[]) => void>();
  let apps: readonly StoredApp[] = [];
  let listening = false;
  let reading: Promise<void> | undefined;
  let readAgain = false;
  let closed = false;

  const outage = createOutage({
    names,
    logger,
    metrics,
    firstDelayMs: options.reconnectDelayMs,
    maxDelayMs: options.maxReconnectDelayMs,
    retry: () => void resume(),
  });
  const health = createHealthCheck({
    intervalMs: options.healthCheckMs,
    timeoutMs: options.healthTimeoutMs,
    target: () => (listening ? connection.client : undefined),
    failed: (client, error) => connection.drop(client, error),
  });
  const expiry = createSecretExpiry({
    table: names.qualified,
    logger,
    query: (text, values) => connection.query(text, values),
    reread: () => scheduleRead(),
  });

  async function read(): Promise<readonly StoredApp[]> {
    const rows = await connection.query(`SELECT * FROM ${names.qualified} ORDER BY id`);
    const result = parseRows(rows, logger);
    metrics?.skippedRows(result.skipped);
    apps = result.apps;
    if (listeners.size > 0) {
      expiry.schedule(result.apps);
      if (result.expired.length > 0) void expiry.drop(result.expired);
    }
    return result.apps;
  }

  function emit(): void {
    for (const listener of listeners) {
      try {
        listener(apps);
      } catch (error) {
        logger.error('app store listener threw', { scope: 'app_store', error });
      }
    }
  }

  /** Re-reads every app once the current read is done; notifications arriving meanwhile fold into one more read. */
  function scheduleRead(): void {
    if (reading) {
      readAgain = true;
      return;
    }
    reading = read()
      .then(emit, (error: unknown) => {
        // A read that fails with the connection gone is retried by the reconnect, which re-reads everything.
        logger.debug('app store read failed', { scope: 'app_store', error });
      })
      .finally(() => {
        reading = undefined;
        if (readAgain && !closed) {
          readAgain = false;
          scheduleRead();
        }
      });
  }

  async function listen(): Promise<void> {
    const client = await connection.open();
    if (listening) return;
    await client.query(`LISTEN "${names.channel}"`);
    listening = true;
    health.start();
  }

  /** LISTEN, then read everything: a change made before the LISTEN is in the read, any later one is notified. */
  async function resume(): Promise<void> {
    if (closed || listeners.size === 0) return;
    try {
      await listen();
      await read();
    } catch (error) {
      logger.debug('app store connection failed', {
        scope: 'app_store',
        error,
        retryInMs: outage.nextDelayMs,
      });
      connection.fail(error);
      return;
    }
    outage.end(apps.length);
    emit();
  }

  return {
    read,
    watch(listener) {
      listeners.add(listener);
      if (listeners.size === 1) void resume();
      return () => {
        listeners.delete(listener);
      };
    },
    current: () => apps,
    get connected() {
      return !outage.down;
    },
    lost(error) {
      listening = false;
      // An outage only matters while someone watches: a load() or a write reports its own error.
      if (closed || listeners.size === 0) return;
      outage.begin(error);
    },
    notified(channel) {
      if (channel === names.channel) scheduleRead();
    },
    close() {
      closed = true;
      listeners.clear();
      outage.close();
      expiry.close();
      health.close();
    },
  };
}
