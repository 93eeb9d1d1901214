import { NotificationError } from './errors.js';
import { createInboxQueries, type InboxQueries } from './inbox-queries.js';
import { openStoreConnection, rememberStoreConnection } from './internal/store-connection.js';
import type { NotificationLogger } from './logger.js';
import { silentNotificationLogger } from './logger.js';
import { createNotificationQueries, type NotificationQueries } from './notification-queries.js';
import { createPreferenceQueries, type PreferenceQueries } from './preference-queries.js';

/** Where the store keeps its rows and how it opens them. */
export interface NotificationStoreOptions {
  /** A PostgreSQL URL; when given, PostgreSQL is used instead of the embedded database. */
  readonly url?: string | undefined;
  /**
   * The embedded database's data directory, created with its parents when missing; without it (and without
   * `url`) the store lives in memory.
   */
  readonly dataDir?: string | undefined;
  /** The PostgreSQL schema the table lives in (created when missing); `public` by default. */
  readonly schema?: string | undefined;
  /** Run the migrations on open (default true); turn off when they run by command. */
  readonly migrate?: boolean | undefined;
  /** Rows per INSERT when writing many notifications at once (default 1000). */
  readonly batchSize?: number | undefined;
  /** PostgreSQL pool size (default 10). */
  readonly poolSize?: number | undefined;
  readonly logger?: NotificationLogger | undefined;
}

/** The notification store: Laravel's `notifications` table in embedded PGlite or PostgreSQL. */
export interface NotificationStore extends NotificationQueries, InboxQueries, PreferenceQueries {
  /** `pglite` or `postgres`. */
  readonly driver: 'pglite' | 'postgres';
  /** Applies pending migrations and returns the names applied (none when up to date). */
  migrate(): Promise<string[]>;
  /** Closes the connections (or the embedded database). */
  close(): Promise<void>;
}

/**
 * Opens the notification store: PostgreSQL when `url` is given, else embedded PGlite (in `dataDir`, or in
 * memory), and runs the migrations unless `migrate` is false.
 *
 * @throws {NotificationError} `store_failed` when the database cannot be opened or migrated.
 * @example
 * const store = await createNotificationStore({ dataDir: './data/notifications' });
 */
export async function createNotificationStore(
  options: NotificationStoreOptions = {},
): Promise<NotificationStore> {
  const connection = await openStoreConnection({
    url: options.url,
    dataDir: options.dataDir,
    schema: options.schema,
    poolSize: options.poolSize,
    logger: options.logger ?? silentNotificationLogger,
  });
  const batchSize = options.batchSize ?? 1000;
  const store: NotificationStore = {
    driver: connection.driver,
    migrate: connection.migrate,
    close: connection.close,
    ...createNotificationQueries(connection, batchSize),
    ...createInboxQueries(connection),
    ...createPreferenceQueries(connection, batchSize),
  };
  rememberStoreConnection(store, connection);

  if (options.migrate ?? true) {
    try {
      await connection.migrate();
    } catch (error) {
      await connection.close();
      throw error instanceof NotificationError
        ? error
        : new NotificationError('store_failed', 'opening the notification store failed', { cause: error });
    }
  }
  return store;
}
