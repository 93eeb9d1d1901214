import { randomBytes } from 'node:crypto';
import type { PreviousSecret } from '@herald/protocol-core';
import pg from 'pg';
import {
  type AppFields,
  COLUMNS,
  type ColumnProblem,
  checkFields,
  parseRow,
  type StoredApp,
} from './columns.js';
import { AppStorePostgresError } from './errors.js';
import { type Logger, silentLogger } from './logger.js';
import { migrationLockKey, migrationSql, type TableNames, tableNames } from './migration.js';

/** Counts an app wires into its metrics (e.g. Prometheus): outages, recoveries and rows skipped. */
export interface AppStoreMetrics {
  /** PostgreSQL became unreachable while watching (once per outage). */
  outage(): void;
  /** PostgreSQL answers again and every app was re-read. */
  restored(): void;
  /** Rows skipped at the last full read because a column holds a value the app cannot use. */
  skippedRows(count: number): void;
}

/** Options of {@link createPostgresAppStore}. */
export interface PostgresAppStoreOptions {
  /** A PostgreSQL connection string, e.g. `postgres://user@127.0.0.1:5432/herald`. */
  readonly url: string;
  /** Schema of the app table. Default `public`. */
  readonly schema?: string;
  /** Name of the app table. Default `herald_apps`. */
  readonly table?: string;
  /** Run the migration on the first connection. Default true. */
  readonly migrate?: boolean;
  /** First reconnect delay after the database went away, in ms; it doubles up to `maxReconnectDelayMs`. Default 250. */
  readonly reconnectDelayMs?: number;
  /** Longest reconnect delay, in ms. Default 5000. */
  readonly maxReconnectDelayMs?: number;
  /** Gives up a connection attempt after this many ms. Default 5000. */
  readonly connectTimeoutMs?: number;
  /**
   * While watching, the connection is checked (`SELECT 1`) this often, in ms, so a database that went silent
   * (a network partition: no error, no close) is noticed too. Default 10000.
   */
  readonly healthCheckMs?: number;
  /** A check unanswered after this many ms counts as the database gone. Default 5000. */
  readonly healthTimeoutMs?: number;
  readonly logger?: Logger;
  readonly metrics?: AppStoreMetrics;
}

/** What {@link PostgresAppStore.rotateSecret} did. */
export interface RotatedSecret {
  readonly app: StoredApp;
  /** The new secret, now the app's. */
  readonly secret: string;
  /** Until when (epoch ms) the replaced secret is still accepted; equal to now for no grace period. */
  readonly previousValidUntil: number;
}

/**
 * Applications in a PostgreSQL table, watched with LISTEN/NOTIFY. Implements the real-time server's `AppStore`
 * port (`load`, `watch`, `close`) over {@link StoredApp} records, and the writes behind `realtime apps …`.
 */
export interface PostgresAppStore {
  /** The table, its schema and the notification channel. */
  readonly names: TableNames;
  /** Creates or extends the table and its notify trigger; safe to run again and from several nodes at once. */
  migrate(): Promise<void>;
  /**
   * Reads every app. Malformed rows are skipped and logged with the app id and the column.
   * @throws {AppStorePostgresError} `unavailable` when PostgreSQL cannot be reached.
   */
  load(): Promise<readonly StoredApp[]>;
  /**
   * Calls `listener` with every app after each change (any writer: the trigger notifies), and again after an
   * outage once everything was re-read. Returns the function that stops it.
   */
  watch(listener: (apps: readonly StoredApp[]) => void): () => void;
  /** The apps as last read: what is served while the database is away. */
  current(): readonly StoredApp[];
  /** Whether the store's connection is up (always true before the first connection is needed). */
  readonly connected: boolean;
  /** One app, read from the database; undefined when there is none. */
  get(id: string): Promise<StoredApp | undefined>;
  /**
   * Adds an app.
   * @throws {AppStorePostgresError} `invalid_app` (a column's value), `conflict` (id or key taken).
   */
  add(app: AppFields): Promise<StoredApp>;
  /**
   * Changes some columns of an app; `null` sets a column back to the default.
   * @throws {AppStorePostgresError} `not_found`, `invalid_app`, `conflict`.
   */
  update(id: string, changes: Partial<Record<keyof AppFields, unknown>>): Promise<StoredApp>;
  /** Disables an app: every node closes its sockets with 4003. @throws {AppStorePostgresError} `not_found`. */
  disable(id: string): Promise<StoredApp>;
  /**
   * Gives an app a new secret (random unless given) and keeps the old one valid for `graceSeconds`, then drops
   * it. @throws {AppStorePostgresError} `not_found`, `invalid_app`.
   */
  rotateSecret(id: string, options: { graceSeconds: number; secret?: string }): Promise<RotatedSecret>;
  /** Stops watching and closes the connection. */
  close(): Promise<void>;
}

const PG_UNIQUE_VIOLATION = '23505';

interface ExpiredSecrets {
  readonly id: string;
  readonly stored: unknown[];
  readonly kept: readonly PreviousSecret[];
}

function describeProblem(problem: ColumnProblem): string {
  return `${problem.column}: ${problem.message}`;
}

/** A new random secret: 32 bytes, hex. */
export function generateSecret(): string {
  return randomBytes(32).toString('hex');
}

/**
 * Creates a PostgreSQL app store. Nothing connects until the first call; `watch` keeps one connection that
 * LISTENs, reconnects with backoff when it drops, and re-reads everything on return so changes made meanwhile
 * are picked up. Lookups never reach the database: the server keeps the apps in memory.
 *
 * @example
 * const store = createPostgresAppStore({ url: 'postgres://postgres@127.0.0.1/herald' });
 * const server = createRealtimeServer({ apps: (await store.load()).map(toRealtimeApp) });
 * store.watch((apps) => server.setApps(apps.map(toRealtimeApp)));
 */
export function createPostgresAppStore(options: PostgresAppStoreOptions): PostgresAppStore {
  const names = tableNames(options.schema ?? 'public', options.table ?? 'herald_apps');
  const { qualified, channel } = names;
  const logger = options.logger ?? silentLogger;
  const firstDelay = options.reconnectDelayMs ?? 250;
  const maxDelay = options.maxReconnectDelayMs ?? 5000;
  const listeners = new Set<(apps: readonly StoredApp[]) => void>();

  let client: pg.Client | undefined;
  let connecting: Promise<pg.Client> | undefined;
  let migrated = options.migrate === false;
  let listening = false;
  let down = false;
  let closed = false;
  let delay = firstDelay;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let expiryTimer: NodeJS.Timeout | undefined;
  let healthTimer: NodeJS.Timeout | undefined;
  let checking = false;
  let apps: readonly StoredApp[] = [];
  let reading: Promise<void> | undefined;
  let readAgain = false;

  function unavailable(error: unknown): AppStorePostgresError {
    return new AppStorePostgresError(
      'unavailable',
      `PostgreSQL is unreachable: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }

  /** The watch lost the database: say so once per outage, count it, and keep retrying with backoff. */
  function markDown(error: unknown): void {
    if (closed || listeners.size === 0) return;
    if (!down) {
      down = true;
      logger.warn('app store unreachable: serving the known apps from memory', {
        scope: 'app_store',
        table: `${names.schema}.${names.table}`,
        error,
      });
      options.metrics?.outage();
    }
    scheduleReconnect();
  }

  function lost(lostClient: pg.Client, error: unknown): void {
    if (client !== lostClient) return;
    client = undefined;
    listening = false;
    // Ending it frees the socket; its own error (already ended) says nothing new.
    lostClient.end().catch(() => undefined);
    markDown(error);
  }

  function failed(error: unknown): void {
    if (client) lost(client, error);
    else markDown(error);
  }

  async function connect(): Promise<pg.Client> {
    const next = new pg.Client({
      connectionString: options.url,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      keepAlive: true,
    });
    next.on('error', (error) => lost(next, error));
    next.on('end', () => lost(next, new Error('connection ended')));
    next.on('notification', (message) => {
      if (message.channel === channel) scheduleRead();
    });
    try {
      await next.connect();
      if (!migrated) {
        await runMigration(next);
        migrated = true;
      }
    } catch (error) {
      next.removeAllListeners('end');
      await next.end().catch(() => undefined);
      throw error;
    }
    client = next;
    return next;
  }

  async function connection(): Promise<pg.Client> {
    if (closed) throw new AppStorePostgresError('unavailable', 'the app store is closed');
    if (client) return client;
    connecting ??= connect().finally(() => {
      connecting = undefined;
    });
    try {
      return await connecting;
    } catch (error) {
      throw unavailable(error);
    }
  }

  async function runMigration(target: pg.Client): Promise<void> {
    await target.query('BEGIN');
    try {
      await target.query(`SELECT pg_advisory_xact_lock(${migrationLockKey(names)})`);
      await target.query(migrationSql(names));
      await target.query('COMMIT');
    } catch (error) {
      await target.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  async function query<Row extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<Row[]> {
    const target = await connection();
    try {
      return (await target.query<Row>(text, values)).rows;
    } catch (error) {
      if (client !== target) throw unavailable(error);
      throw error;
    }
  }

  async function readAll(): Promise<readonly StoredApp[]> {
    const rows = await query(`SELECT * FROM ${qualified} ORDER BY id`);
    const now = Date.now();
    const read: StoredApp[] = [];
    let skipped = 0;
    const expired: ExpiredSecrets[] = [];
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
      read.push(parsed.value);
      const stored = row.previous_secrets;
      const kept = parsed.value.previous_secrets ?? [];
      if (Array.isArray(stored) && stored.length !== kept.length)
        expired.push({ id: parsed.value.id, stored, kept });
    }
    options.metrics?.skippedRows(skipped);
    apps = read;
    if (listeners.size > 0) {
      scheduleExpiry(read);
      if (expired.length > 0) void dropExpired(expired);
    }
    return read;
  }

  // Expired previous secrets are refused at check time already; dropping them from the row is housekeeping. Only
  // rows still as read are touched, so a rotation that happened meanwhile is never undone.
  async function dropExpired(rows: readonly ExpiredSecrets[]): Promise<void> {
    for (const { id, stored, kept } of rows) {
      const entries = kept.map((entry) => ({
        secret: entry.secret,
        until: new Date(entry.until).toISOString(),
      }));
      await query(
        `UPDATE ${qualified} SET previous_secrets = $2::jsonb WHERE id = $1 AND previous_secrets = $3::jsonb`,
        [id, JSON.stringify(entries), JSON.stringify(stored)],
      ).catch((error: unknown) =>
        logger.debug('dropping expired secrets failed', { scope: 'app_store', error }),
      );
    }
  }

  function scheduleExpiry(read: readonly StoredApp[]): void {
    if (expiryTimer) clearTimeout(expiryTimer);
    const untils = read.flatMap((app) => (app.previous_secrets ?? []).map((entry) => entry.until));
    if (untils.length === 0) return;
    const wait = Math.max(0, Math.min(...untils) - Date.now()) + 50;
    expiryTimer = setTimeout(scheduleRead, Math.min(wait, 2 ** 31 - 1));
    expiryTimer.unref();
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
    reading = readAll()
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

  /** One health check of the watching connection; an error or no answer in time counts as losing it. */
  function checkHealth(): void {
    const target = client;
    if (!target || !listening || checking) return;
    checking = true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error('PostgreSQL did not answer the health check')),
        options.healthTimeoutMs ?? 5000,
      );
    });
    Promise.race([target.query('SELECT 1'), timeout])
      .then(
        () => undefined,
        (error: unknown) => lost(target, error),
      )
      .finally(() => {
        clearTimeout(timer);
        checking = false;
      });
  }

  async function listen(): Promise<void> {
    const target = await connection();
    if (listening) return;
    await target.query(`LISTEN "${channel}"`);
    listening = true;
    if (!healthTimer) {
      healthTimer = setInterval(checkHealth, options.healthCheckMs ?? 10_000);
      healthTimer.unref();
    }
  }

  function scheduleReconnect(): void {
    if (reconnectTimer || closed) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      void reconnect();
    }, delay);
    reconnectTimer.unref();
    delay = Math.min(maxDelay, delay * 2);
  }

  async function reconnect(): Promise<void> {
    if (closed || listeners.size === 0) return;
    try {
      await listen();
      await readAll();
    } catch (error) {
      logger.debug('app store connection failed', { scope: 'app_store', error, retryInMs: delay });
      failed(error);
      return;
    }
    delay = firstDelay;
    if (down) {
      down = false;
      logger.info('app store reachable again: every app re-read', { scope: 'app_store', apps: apps.length });
      options.metrics?.restored();
    }
    emit();
  }

  async function writeReturning(text: string, values: unknown[]): Promise<StoredApp | undefined> {
    let rows: Array<Record<string, unknown>>;
    try {
      rows = await query(text, values);
    } catch (error) {
      if ((error as { code?: string }).code === PG_UNIQUE_VIOLATION) {
        const detail = (error as { detail?: string }).detail ?? (error as Error).message;
        throw new AppStorePostgresError('conflict', `another app has this id or key: ${detail}`, {
          cause: error,
        });
      }
      throw error;
    }
    const row = rows[0];
    if (!row) return undefined;
    const parsed = parseRow(row);
    if (!parsed.ok) {
      throw new AppStorePostgresError(
        'invalid_app',
        `app ${parsed.error.appId}: ${describeProblem(parsed.error)}`,
      );
    }
    return parsed.value;
  }

  function notFound(id: string): AppStorePostgresError {
    return new AppStorePostgresError('not_found', `no app has the id "${id}"`);
  }

  async function update(id: string, changes: Partial<Record<keyof AppFields, unknown>>): Promise<StoredApp> {
    const checked = checkFields(changes, false);
    if (!checked.ok) throw new AppStorePostgresError('invalid_app', describeProblem(checked.error));
    const entries = Object.entries(checked.value);
    if (entries.length === 0) {
      const existing = await store.get(id);
      if (!existing) throw notFound(id);
      return existing;
    }
    const sets = entries.map(([column], index) => `${column} = $${index + 2}`);
    const updated = await writeReturning(
      `UPDATE ${qualified} SET ${sets.join(', ')}, updated_at = now() WHERE id = $1 RETURNING *`,
      [id, ...entries.map(([column, value]) => toSql(column, value))],
    );
    if (!updated) throw notFound(id);
    return updated;
  }

  const store: PostgresAppStore = {
    names,
    get connected() {
      return !down;
    },

    async migrate() {
      await runMigration(await connection());
      migrated = true;
    },

    load: () => readAll(),

    watch(listener) {
      listeners.add(listener);
      // LISTEN first, then read everything: a change made between an earlier load() and now is not missed.
      if (listeners.size === 1) void reconnect();
      return () => {
        listeners.delete(listener);
      };
    },

    current: () => apps,

    async get(id) {
      const rows = await query(`SELECT * FROM ${qualified} WHERE id = $1`, [id]);
      const row = rows[0];
      if (!row) return undefined;
      const parsed = parseRow(row);
      if (!parsed.ok) {
        throw new AppStorePostgresError(
          'invalid_app',
          `app ${parsed.error.appId}: ${describeProblem(parsed.error)}`,
        );
      }
      return parsed.value;
    },

    async add(app) {
      const checked = checkFields(app as Record<string, unknown>, true);
      if (!checked.ok) throw new AppStorePostgresError('invalid_app', describeProblem(checked.error));
      const entries = Object.entries(checked.value).filter(([, value]) => value !== null);
      const added = await writeReturning(
        `INSERT INTO ${qualified} (${entries.map(([column]) => column).join(', ')})
         VALUES (${entries.map((_, index) => `$${index + 1}`).join(', ')}) RETURNING *`,
        entries.map(([column, value]) => toSql(column, value)),
      );
      return added as StoredApp;
    },

    update,

    disable: (id) => update(id, { enabled: false }),

    async rotateSecret(id, rotation) {
      if (!Number.isFinite(rotation.graceSeconds) || rotation.graceSeconds < 0) {
        throw new AppStorePostgresError('invalid_app', 'grace period: must be 0 or more seconds');
      }
      const secret = rotation.secret ?? generateSecret();
      const checked = checkFields({ secret }, false);
      if (!checked.ok) throw new AppStorePostgresError('invalid_app', describeProblem(checked.error));
      // One statement: the old secret is read and kept under the row lock the update takes, so two rotations at
      // once cannot lose a secret. Expired entries are dropped on the way.
      const rotated = await writeReturning(
        `UPDATE ${qualified} AS t SET
           secret = $2,
           previous_secrets = (
             SELECT coalesce(jsonb_agg(entry), '[]'::jsonb) FROM (
               SELECT entry FROM jsonb_array_elements(
                 CASE WHEN jsonb_typeof(t.previous_secrets) = 'array' THEN t.previous_secrets ELSE '[]'::jsonb END
               ) AS entry
               WHERE jsonb_typeof(entry) = 'object' AND (entry->>'until') > to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
               UNION ALL
               SELECT jsonb_build_object('secret', t.secret, 'until',
                 to_char((now() + make_interval(secs => $3)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
               WHERE $3 > 0
             ) AS kept
           ),
           updated_at = now()
         WHERE id = $1 RETURNING *`,
        [id, secret, rotation.graceSeconds],
      );
      if (!rotated) throw notFound(id);
      // The replaced secret is the entry appended last.
      const previousValidUntil =
        rotation.graceSeconds > 0 ? (rotated.previous_secrets?.at(-1)?.until ?? Date.now()) : Date.now();
      return { app: rotated, secret, previousValidUntil };
    },

    async close() {
      closed = true;
      listeners.clear();
      if (reconnectTimer) clearTimeout(reconnectTimer);
      if (expiryTimer) clearTimeout(expiryTimer);
      if (healthTimer) clearInterval(healthTimer);
      const open = client ?? (await connecting?.catch(() => undefined));
      client = undefined;
      if (open) {
        open.removeAllListeners('end');
        // A database gone silent never answers the goodbye: wait a moment at most, so shutdown never hangs.
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          open.end().catch(() => undefined),
          new Promise((resolve) => {
            timer = setTimeout(resolve, 1000);
          }),
        ]);
        clearTimeout(timer);
      }
    },
  };
  return store;
}

/** JSON columns go to PostgreSQL as JSON text; the rest as they are. */
function toSql(column: string, value: unknown): unknown {
  if (value === null) return null;
  const kind = COLUMNS.find((entry) => entry.name === column)?.kind;
  return kind === 'origins' || kind === 'webhooks' || kind === 'object' ? JSON.stringify(value) : value;
}
