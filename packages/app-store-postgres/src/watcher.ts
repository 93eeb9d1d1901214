import type { SecretCipher } from '@herald/protocol-core';
import { parseRow, type StoredApp } from './columns.js';
import type { Connection, ConnectionHooks } from './connection.js';
import { AppStorePostgresError } from './errors.js';
import { createHealthCheck } from './health-check.js';
import { describeOpenProblem, type InTransaction, sealPlaintextRows } from './key-rotation.js';
import type { Logger } from './logger.js';
import type { AppStoreMetrics } from './metrics.js';
import type { TableNames } from './migration.js';
import { createOutage } from './outage.js';
import type { Row } from './row.js';
import { hasPlaintext, openRow } from './sealed-row.js';
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
  /** Opens sealed secrets; without it, a sealed row refuses the load. */
  readonly cipher: SecretCipher | undefined;
  /** Runs work in one transaction under the store's lock (sealing plaintext rows). */
  readonly inTransaction: InTransaction;
}

/** Reads the apps, and while anyone watches, keeps reading them as they change: the store's `AppStore` side. */
export interface Watcher extends ConnectionHooks {
  /**
   * Reads every app (malformed rows skipped) and keeps them as the current list. With a key, plaintext secrets are
   * sealed first.
   * @throws {AppStorePostgresError} `key_required` or `wrong_key` for a row whose secrets cannot be opened.
   */
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
  /** Whether any row still holds a secret in plaintext. */
  readonly plaintext: boolean;
}

/** How rows are read: with which key, and what to do with a row that key cannot open. */
interface ParseRowsOptions {
  readonly logger: Logger;
  readonly cipher: SecretCipher | undefined;
  /**
   * The apps as last read, kept for a row the key cannot open (a re-read while another node re-keyed the
   * store); undefined to refuse such a row instead (the first read: nothing is served from garbage).
   */
  readonly known: ReadonlyMap<string, StoredApp> | undefined;
}

/**
 * Parses every row read; a malformed one is skipped with a warning naming the app and the column. A row whose
 * secrets the key cannot open is refused (first read), or its version already loaded is kept, with an error.
 */
function parseRows(rows: readonly Row[], options: ParseRowsOptions): ReadRows {
  const { logger, cipher, known } = options;
  const now = Date.now();
  const apps: StoredApp[] = [];
  const expired: ExpiredSecrets[] = [];
  let skipped = 0;
  let plaintext = false;
  for (const row of rows) {
    const opened = openRow(row, cipher);
    if (!opened.ok) {
      const reason = describeOpenProblem(opened.error, row, cipher);
      const code = opened.error.problem === 'corrupt' ? 'invalid_app' : opened.error.problem;
      if (!known) throw new AppStorePostgresError(code, reason);
      const kept = known.get(opened.error.appId);
      logger.error(
        kept
          ? 'app row cannot be decrypted: serving the version already loaded'
          : 'app row cannot be decrypted: not served',
        { scope: 'app_store', appId: opened.error.appId, column: opened.error.column, reason },
      );
      if (kept) apps.push(kept);
      else skipped += 1;
      continue;
    }
    if (cipher && hasPlaintext(row)) plaintext = true;
    const parsed = parseRow(opened.value, now);
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
  return { apps, skipped, expired, plaintext };
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

  const select = () => connection.query(`SELECT * FROM ${names.qualified} ORDER BY id`);

  /** Seals plaintext secrets (a first start with a key, or a row written in plaintext by another tool). */
  function seal(cipher: SecretCipher): Promise<number> {
    return sealPlaintextRows(options.inTransaction, names.qualified, cipher).then((written) => {
      if (written > 0) logger.info('app secrets encrypted', { scope: 'app_store', rows: written });
      return written;
    });
  }

  /**
   * Reads every row. `strict` (a load) refuses a row the key cannot open and seals plaintext rows before
   * answering; a re-read keeps the loaded version of such a row and seals plaintext in the background.
   */
  async function readRows(strict: boolean): Promise<readonly StoredApp[]> {
    const { cipher } = options;
    let rows = await select();
    if (strict && cipher && rows.some(hasPlaintext) && (await seal(cipher)) > 0) rows = await select();
    const known = strict ? undefined : new Map(apps.map((app) => [app.id, app]));
    const result = parseRows(rows, { logger, cipher, known });
    metrics?.skippedRows(result.skipped);
    apps = result.apps;
    if (listeners.size > 0) {
      expiry.schedule(result.apps);
      if (result.expired.length > 0) void expiry.drop(result.expired);
      if (cipher && result.plaintext && !strict) {
        // The write notifies, and the re-read it causes finds the rows sealed: no loop.
        seal(cipher).catch((error: unknown) =>
          logger.error('encrypting app secrets failed', { scope: 'app_store', error }),
        );
      }
    }
    return result.apps;
  }

  const read = () => readRows(true);

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
    reading = readRows(false)
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
      await readRows(false);
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
