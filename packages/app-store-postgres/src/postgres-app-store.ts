import { createSecretCipher } from '@herald/protocol-core';
import type { AppFields, StoredApp } from './columns.js';
import { createConnection } from './connection.js';
import { AppStorePostgresError } from './errors.js';
import { rekeyRows, sealPlaintextRows } from './key-rotation.js';
import { type Logger, silentLogger } from './logger.js';
import type { AppStoreMetrics } from './metrics.js';
import { type TableNames, tableNames } from './migration.js';
import { createQueries, type RotatedSecret } from './queries.js';
import { createWatcher, type Watcher } from './watcher.js';

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
  /**
   * The 32-byte key app secrets are encrypted with at rest (AES-256-GCM; read one with `parseStoreKey`). With it,
   * secrets are sealed on every write and plaintext rows are sealed on the first load; without it, a store holding
   * sealed secrets refuses to load (`key_required`). A key that does not open them refuses too (`wrong_key`).
   */
  readonly encryptionKey?: Uint8Array;
}

/**
 * Applications in a PostgreSQL table, watched with LISTEN/NOTIFY. Implements the real-time server's `AppStore`
 * port (`load`, `watch`, `close`) over {@link StoredApp} records, and the writes behind `realtime apps …`.
 */
export interface PostgresAppStore {
  /** The table, its schema and the notification channel. */
  readonly names: TableNames;
  /**
   * Creates or extends the table and its notify trigger, then (with a key) seals every plaintext secret; safe to
   * run again and from several nodes at once.
   */
  migrate(): Promise<void>;
  /** The public id of the store's key (written into every sealed value), or undefined without a key. */
  readonly keyId: string | undefined;
  /**
   * Re-encrypts every row's secrets from the store's key (or from plaintext, without one) to `newKey`, in one
   * transaction. Returns how many rows were written. Nodes keep serving: restart them with the new key.
   * @throws {AppStorePostgresError} `wrong_key` or `key_required` naming a row the current key cannot open
   * (nothing is written then), `invalid_options` for a key that is not 32 bytes.
   */
  rekey(newKey: Uint8Array): Promise<number>;
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

function cipherOf(key: Uint8Array) {
  if (key.length !== 32) {
    throw new AppStorePostgresError('invalid_options', `encryptionKey must be 32 bytes, not ${key.length}`);
  }
  return createSecretCipher(key);
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
  const cipher = options.encryptionKey === undefined ? undefined : cipherOf(options.encryptionKey);
  const connection = createConnection({
    url: options.url,
    names,
    migrate: options.migrate !== false,
    connectTimeoutMs: options.connectTimeoutMs ?? 5000,
    // The watcher decides what a lost connection or a notification means; it needs the connection to exist first.
    hooks: {
      lost: (error) => watcher.lost(error),
      notified: (channel) => watcher.notified(channel),
    },
  });
  const watcher: Watcher = createWatcher({
    connection,
    names,
    logger: options.logger ?? silentLogger,
    metrics: options.metrics,
    reconnectDelayMs: options.reconnectDelayMs ?? 250,
    maxReconnectDelayMs: options.maxReconnectDelayMs ?? 5000,
    healthCheckMs: options.healthCheckMs ?? 10_000,
    healthTimeoutMs: options.healthTimeoutMs ?? 5000,
    cipher,
    inTransaction: (work) => connection.transaction(work),
  });
  const queries = createQueries((text, values) => connection.query(text, values), names.qualified, cipher);
  return {
    names,
    get connected() {
      return watcher.connected;
    },
    keyId: cipher?.keyId,
    async migrate() {
      await connection.migrate();
      if (cipher) await sealPlaintextRows((work) => connection.transaction(work), names.qualified, cipher);
    },
    rekey: (newKey) =>
      rekeyRows((work) => connection.transaction(work), names.qualified, {
        from: cipher,
        to: cipherOf(newKey),
      }),
    load: () => watcher.read(),
    watch: (listener) => watcher.watch(listener),
    current: () => watcher.current(),
    get: (id) => queries.get(id),
    add: (app) => queries.add(app),
    update: (id, changes) => queries.update(id, changes),
    disable: (id) => queries.disable(id),
    rotateSecret: (id, rotation) => queries.rotateSecret(id, rotation),
    async close() {
      watcher.close();
      await connection.close();
    },
  };
}
