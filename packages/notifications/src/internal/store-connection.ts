import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import { NotificationError } from '../errors.js';
import type { NotificationLogger } from '../logger.js';
import { type Database, migrationProvider } from './schema.js';

/** How a store's database is opened (the store's options, minus what only the queries use). */
export interface StoreConnectionOptions {
  readonly url?: string | undefined;
  readonly dataDir?: string | undefined;
  readonly schema?: string | undefined;
  readonly poolSize?: number | undefined;
  readonly logger: NotificationLogger;
}

/** One open database: the notification tables, the send API's idempotency keys, and their migrations. */
export interface StoreConnection {
  readonly driver: 'pglite' | 'postgres';
  /** The PostgreSQL schema every table lives in. */
  readonly schema: string;
  /** Queries scoped to the schema. */
  readonly db: Kysely<Database>;
  /** Runs `work` in one transaction, its queries scoped to the schema. */
  transaction<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T>;
  /** Applies pending migrations and returns the names applied. */
  migrate(): Promise<string[]>;
  close(): Promise<void>;
}

const SQL_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

function openDialect(options: StoreConnectionOptions): {
  driver: 'pglite' | 'postgres';
  root: Kysely<Database>;
} {
  if (options.url) {
    const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 10 });
    return { driver: 'postgres', root: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }) };
  }
  const pglite = new PGlite(options.dataDir);
  return { driver: 'pglite', root: new Kysely<Database>({ dialect: new PGliteDialect(pglite) }) };
}

/**
 * Opens the database a store keeps its tables in: PostgreSQL when `url` is given, else embedded PGlite.
 *
 * @throws {NotificationError} `invalid_options` for a schema that is not a plain identifier, `store_failed`
 * when the data directory cannot be made.
 */
export async function openStoreConnection(options: StoreConnectionOptions): Promise<StoreConnection> {
  const schema = options.schema ?? 'public';
  if (!SQL_IDENTIFIER.test(schema)) {
    throw new NotificationError('invalid_options', `schema must be a plain SQL identifier, got "${schema}"`);
  }
  // PGlite makes only the last folder of its data directory: a fresh checkout has no `data/` yet.
  if (!options.url && options.dataDir && !options.dataDir.includes('://')) {
    try {
      await mkdir(options.dataDir, { recursive: true });
    } catch (cause) {
      throw new NotificationError('store_failed', `cannot create the data directory ${options.dataDir}`, {
        cause,
      });
    }
  }
  const { driver, root } = openDialect(options);
  const db = root.withSchema(schema);

  const migrate = async (): Promise<string[]> => {
    await sql`create schema if not exists ${sql.id(schema)}`.execute(root);
    const migrator = new Migrator({
      db,
      provider: migrationProvider,
      migrationTableSchema: schema,
      migrationTableName: 'notifications_migrations',
      migrationLockTableName: 'notifications_migrations_lock',
    });
    const { error, results } = await migrator.migrateToLatest();
    if (error)
      throw new NotificationError('store_failed', 'migrating the notification store failed', {
        cause: error,
      });
    const applied = (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    if (applied.length > 0) options.logger.debug('notification store migrated', { applied, driver, schema });
    return applied;
  };

  return {
    driver,
    schema,
    db,
    transaction: (work) => root.transaction().execute((trx) => work(trx.withSchema(schema))),
    migrate,
    close: () => root.destroy(),
  };
}

// Which connection each store was opened on, so the send API keeps its idempotency keys in the same database
// without the store's own surface carrying them.
const connections = new WeakMap<object, StoreConnection>();

/** Records the connection a store was opened on. */
export function rememberStoreConnection(store: object, connection: StoreConnection): void {
  connections.set(store, connection);
}

/** The connection a store made by `createNotificationStore` was opened on; `undefined` for any other object. */
export function storeConnectionOf(store: object): StoreConnection | undefined {
  return connections.get(store);
}
