import pg from 'pg';
import { AppStorePostgresError } from './errors.js';
import { migrationLockKey, migrationSql, type TableNames } from './migration.js';
import type { Row } from './row.js';

/** What the connection tells its owner about; set by the watcher, which decides what a loss means. */
export interface ConnectionHooks {
  /** The open connection failed or ended (or could not be opened for the watch). */
  lost(error: unknown): void;
  /** A NOTIFY arrived on `channel`. */
  notified(channel: string): void;
}

/** Options of {@link createConnection}. */
export interface ConnectionOptions {
  readonly url: string;
  readonly names: TableNames;
  /** Run the migration on the first connection. */
  readonly migrate: boolean;
  readonly connectTimeoutMs: number;
  readonly hooks: ConnectionHooks;
}

/** The store's one PostgreSQL connection: opened when first needed, replaced after a loss, closed once. */
export interface Connection {
  /** The open client, or undefined while there is none. */
  readonly client: pg.Client | undefined;
  /** The open client, connecting (and migrating, the first time) when there is none. */
  open(): Promise<pg.Client>;
  query(text: string, values?: unknown[]): Promise<Row[]>;
  /** Creates or extends the table and its trigger under the migration lock. */
  migrate(): Promise<void>;
  /**
   * Runs `work` in one transaction on a client of its own (so no other query of the store lands inside it), under
   * the migration lock, so two nodes doing the same at once take turns.
   */
  transaction<T>(work: (query: TransactionQuery) => Promise<T>): Promise<T>;
  /** Gives up `target` when it is still the open client, and reports the loss. */
  drop(target: pg.Client, error: unknown): void;
  /** Gives up the open client, if any, and reports the loss. */
  fail(error: unknown): void;
  /** Ends the connection; never waits more than a second on a dead one. */
  close(): Promise<void>;
}

/** Runs one statement inside a {@link Connection.transaction}. */
export type TransactionQuery = (text: string, values?: unknown[]) => Promise<Row[]>;

function unavailable(error: unknown): AppStorePostgresError {
  const reason = error instanceof Error ? error.message : String(error);
  return new AppStorePostgresError('unavailable', `PostgreSQL is unreachable: ${reason}`, { cause: error });
}

async function runMigration(target: pg.Client, names: TableNames): Promise<void> {
  await target.query('BEGIN');
  try {
    await target.query(`SELECT pg_advisory_xact_lock(${migrationLockKey(names)})`);
    await target.query(migrationSql(names));
    await target.query('COMMIT');
  } catch (error) {
    // The migration's own error is the one worth raising; a failed ROLLBACK on a broken connection adds nothing.
    await target.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** Ends a client, waiting a second at most: a database gone silent never answers the goodbye. */
async function endWithin(target: pg.Client, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    // Ending is best effort: the client is given up either way.
    target.end().catch(() => undefined),
    new Promise((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

/** Creates the store's connection; nothing connects until the first `open` or query. */
export function createConnection(options: ConnectionOptions): Connection {
  const { names, hooks } = options;
  let client: pg.Client | undefined;
  let connecting: Promise<pg.Client> | undefined;
  let migrated = !options.migrate;
  let closed = false;

  function drop(target: pg.Client, error: unknown): void {
    if (client !== target) return;
    client = undefined;
    // Ending it frees the socket; its own error (already ended) says nothing new.
    target.end().catch(() => undefined);
    hooks.lost(error);
  }

  async function connect(): Promise<pg.Client> {
    const next = new pg.Client({
      connectionString: options.url,
      connectionTimeoutMillis: options.connectTimeoutMs,
      keepAlive: true,
    });
    next.on('error', (error) => drop(next, error));
    next.on('end', () => drop(next, new Error('connection ended')));
    next.on('notification', (message) => hooks.notified(message.channel));
    try {
      await next.connect();
      if (!migrated) {
        await runMigration(next, names);
        migrated = true;
      }
    } catch (error) {
      next.removeAllListeners('end');
      // The connect or migration error is raised; the half-open client only needs to go.
      await next.end().catch(() => undefined);
      throw error;
    }
    client = next;
    return next;
  }

  async function open(): Promise<pg.Client> {
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

  return {
    get client() {
      return client;
    },
    open,
    async query(text, values = []) {
      const target = await open();
      try {
        return (await target.query<Row>(text, values)).rows;
      } catch (error) {
        if (client !== target) throw unavailable(error);
        throw error;
      }
    },
    async migrate() {
      await runMigration(await open(), names);
      migrated = true;
    },
    async transaction(work) {
      if (closed) throw new AppStorePostgresError('unavailable', 'the app store is closed');
      const own = new pg.Client({
        connectionString: options.url,
        connectionTimeoutMillis: options.connectTimeoutMs,
      });
      // An error of this short-lived client surfaces as its query's rejection below.
      own.on('error', () => undefined);
      try {
        await own.connect();
      } catch (error) {
        await own.end().catch(() => undefined);
        throw unavailable(error);
      }
      try {
        await own.query('BEGIN');
        await own.query(`SELECT pg_advisory_xact_lock(${migrationLockKey(names)})`);
        const result = await work(async (text, values = []) => (await own.query<Row>(text, values)).rows);
        await own.query('COMMIT');
        return result;
      } catch (error) {
        // The work's own error is the one worth raising; ending the client rolls back in any case.
        await own.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        await endWithin(own, 1000);
      }
    },
    drop,
    fail(error) {
      if (client) drop(client, error);
      else hooks.lost(error);
    },
    async close() {
      closed = true;
      // A connection still being opened is closed too once it is up; its failure means there is nothing to close.
      const last = client ?? (await connecting?.catch(() => undefined));
      client = undefined;
      if (!last) return;
      last.removeAllListeners('end');
      await endWithin(last, 1000);
    },
  };
}
