import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import {
  type Expression,
  type ExpressionBuilder,
  Kysely,
  Migrator,
  PostgresDialect,
  type SqlBool,
  sql,
} from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import pg from 'pg';
import { NotificationError } from './errors.js';
import type { Database } from './internal/schema.js';
import { migrationProvider } from './internal/schema.js';
import type { NotificationLogger } from './logger.js';
import { silentNotificationLogger } from './logger.js';
import type { NotificationData } from './notification-data.js';
import {
  ANY_NOTIFICATION_TYPE,
  type ChannelPreferences,
  type NotificationPreferences,
  preferenceOwnerKey,
  refusedChannelsOf,
} from './preferences.js';
import type { NewNotificationRecord, NotifiableKey, NotificationRecord } from './record.js';

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

/** Which of a notifiable's notifications a list or a bulk change covers. */
export interface NotificationFilter {
  readonly status?: 'all' | 'read' | 'unread' | undefined;
  /** The notification type (class name). */
  readonly type?: string | undefined;
  /** Only notifications created before this time. */
  readonly before?: Date | undefined;
}

/** One page of a notifiable's notifications, newest first, with the counts a list answer needs. */
export interface NotificationPage {
  readonly records: readonly NotificationRecord[];
  /** How many match the filter, on every page. */
  readonly total: number;
  /** How many of the notifiable's notifications are unread, whatever the filter. */
  readonly unreadCount: number;
}

/** What marking one notification read did. */
export interface MarkReadOutcome {
  readonly record: NotificationRecord;
  /** False when it was read already (the time it was read is kept). */
  readonly changed: boolean;
}

/** What claiming an idempotency key found. */
export type IdempotencyClaim =
  /** The key was free and is now held by this request. */
  | { readonly state: 'claimed' }
  /** Another request holds the key and has not finished. */
  | { readonly state: 'in_progress'; readonly fingerprint: string }
  /** A request with this key finished; its answer is kept. */
  | {
      readonly state: 'completed';
      readonly fingerprint: string;
      readonly status: number;
      readonly response: unknown;
    };

/** The notification store: Laravel's `notifications` table in embedded PGlite or PostgreSQL. */
export interface NotificationStore {
  /** `pglite` or `postgres`. */
  readonly driver: 'pglite' | 'postgres';
  /** Applies pending migrations and returns the names applied (none when up to date). */
  migrate(): Promise<string[]>;
  /** Inserts notifications in batched writes, in one transaction. */
  insertMany(records: readonly NewNotificationRecord[]): Promise<void>;
  /** One page of a notifiable's notifications, newest first. */
  list(
    owner: NotifiableKey,
    page: { page: number; limit: number },
    filter?: NotificationFilter,
  ): Promise<NotificationPage>;
  /** How many of a notifiable's notifications are unread. */
  unreadCount(owner: NotifiableKey): Promise<number>;
  /** How many notifications are stored for every notifiable together, optionally of one type. */
  count(filter?: { type?: string | undefined }): Promise<number>;
  /** One notification, only if it belongs to the notifiable. */
  find(owner: NotifiableKey, id: string): Promise<NotificationRecord | undefined>;
  /** Marks one notification read; `undefined` when the notifiable has no such notification. */
  markRead(owner: NotifiableKey, id: string): Promise<MarkReadOutcome | undefined>;
  /** Marks every unread notification matching the filter read and returns how many changed. */
  markAllRead(owner: NotifiableKey, filter?: Omit<NotificationFilter, 'status'>): Promise<number>;
  /** Deletes one notification; false when the notifiable has no such notification. */
  delete(owner: NotifiableKey, id: string): Promise<boolean>;
  /** Deletes every notification matching the filter and returns how many went. */
  deleteAll(owner: NotifiableKey, filter?: NotificationFilter): Promise<number>;
  /** A notifiable's channel preferences per notification type (empty when never set). */
  getPreferences(owner: NotifiableKey): Promise<NotificationPreferences>;
  /** Replaces a notifiable's channel preferences with these. */
  setPreferences(owner: NotifiableKey, preferences: NotificationPreferences): Promise<void>;
  /** The channels each notifiable refuses for a notification type; the sender asks before any channel runs. */
  refusedChannels: ChannelPreferences['refusedChannels'];
  /**
   * Holds an idempotency key for a request with this fingerprint, unless a request made since `since`
   * already holds it. Keys older than `since` are forgotten.
   */
  claimIdempotencyKey(key: string, fingerprint: string, since: Date): Promise<IdempotencyClaim>;
  /** Keeps the answer of the request that holds the key, for its retries. */
  completeIdempotencyKey(key: string, status: number, response: unknown): Promise<void>;
  /** Lets a key go (the request failed before sending anything), so a retry can send. */
  releaseIdempotencyKey(key: string): Promise<void>;
  /** Closes the connections (or the embedded database). */
  close(): Promise<void>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Tells whether a string is a UUID, the shape of every notification id. */
export function isNotificationId(value: string): boolean {
  return UUID.test(value);
}

interface Row {
  id: string;
  type: string;
  notifiable_type: string;
  notifiable_id: string;
  data: NotificationData;
  read_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

function toRecord(row: Row): NotificationRecord {
  return {
    id: row.id,
    type: row.type,
    notifiable_type: row.notifiable_type,
    notifiable_id: row.notifiable_id,
    data: row.data,
    read_at: row.read_at === null ? null : row.read_at.toISOString(),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function preferencesOf(
  rows: ReadonlyArray<{ notification_type: string; channel: string; enabled: boolean }>,
): NotificationPreferences {
  const preferences: Record<string, Record<string, boolean>> = {};
  for (const row of rows) {
    preferences[row.notification_type] = {
      ...preferences[row.notification_type],
      [row.channel]: row.enabled,
    };
  }
  return preferences;
}

function openDialect(options: NotificationStoreOptions): {
  driver: 'pglite' | 'postgres';
  db: Kysely<Database>;
} {
  if (options.url) {
    const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 10 });
    return { driver: 'postgres', db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }) };
  }
  const pglite = new PGlite(options.dataDir);
  return { driver: 'pglite', db: new Kysely<Database>({ dialect: new PGliteDialect(pglite) }) };
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
  const logger = options.logger ?? silentNotificationLogger;
  const schemaName = options.schema ?? 'public';
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schemaName)) {
    throw new NotificationError(
      'invalid_options',
      `schema must be a plain SQL identifier, got "${schemaName}"`,
    );
  }
  const batchSize = options.batchSize ?? 1000;
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
  const { driver, db: root } = openDialect(options);
  const db = root.withSchema(schemaName);

  const ownedBy = (owner: NotifiableKey) =>
    db
      .selectFrom('notifications')
      .where('notifiable_type', '=', owner.type)
      .where('notifiable_id', '=', owner.id);

  const migrate = async (): Promise<string[]> => {
    await sql`create schema if not exists ${sql.id(schemaName)}`.execute(root);
    const migrator = new Migrator({
      db: root.withSchema(schemaName) as unknown as Kysely<unknown>,
      provider: migrationProvider,
      migrationTableSchema: schemaName,
      migrationTableName: 'notifications_migrations',
      migrationLockTableName: 'notifications_migrations_lock',
    });
    const { error, results } = await migrator.migrateToLatest();
    if (error)
      throw new NotificationError('store_failed', 'migrating the notification store failed', {
        cause: error,
      });
    const applied = (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    if (applied.length > 0)
      logger.debug('notification store migrated', { applied, driver, schema: schemaName });
    return applied;
  };

  const conditions = (
    eb: ExpressionBuilder<Database, 'notifications'>,
    filter: NotificationFilter,
  ): Expression<SqlBool> => {
    const parts: Expression<SqlBool>[] = [];
    if (filter.status === 'read') parts.push(eb('read_at', 'is not', null));
    if (filter.status === 'unread') parts.push(eb('read_at', 'is', null));
    if (filter.type !== undefined) parts.push(eb('type', '=', filter.type));
    if (filter.before !== undefined) parts.push(eb('created_at', '<', filter.before));
    return eb.and(parts);
  };

  const unreadCount = async (owner: NotifiableKey): Promise<number> => {
    const row = await ownedBy(owner)
      .where('read_at', 'is', null)
      .select(sql<number>`count(*)::int`.as('count'))
      .executeTakeFirstOrThrow();
    return row.count;
  };

  const store: NotificationStore = {
    driver,
    migrate,
    async insertMany(records) {
      if (records.length === 0) return;
      const now = new Date();
      const rows = records.map((record) => ({
        id: record.id,
        type: record.type,
        notifiable_type: record.notifiable_type,
        notifiable_id: record.notifiable_id,
        data: JSON.stringify(record.data),
        read_at: record.read_at ?? null,
        created_at: record.created_at ?? now,
        updated_at: record.created_at ?? now,
      }));
      await root.transaction().execute(async (trx) => {
        for (let start = 0; start < rows.length; start += batchSize) {
          await trx
            .withSchema(schemaName)
            .insertInto('notifications')
            .values(rows.slice(start, start + batchSize))
            .execute();
        }
      });
    },
    async list(owner, { page, limit }, filter = {}) {
      const [rows, total, unread] = await Promise.all([
        ownedBy(owner)
          .where((eb) => conditions(eb, filter))
          .selectAll()
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(limit)
          .offset((page - 1) * limit)
          .execute(),
        ownedBy(owner)
          .where((eb) => conditions(eb, filter))
          .select(sql<number>`count(*)::int`.as('count'))
          .executeTakeFirstOrThrow(),
        unreadCount(owner),
      ]);
      return { records: (rows as Row[]).map(toRecord), total: total.count, unreadCount: unread };
    },
    unreadCount,
    async count(filter = {}) {
      let query = db.selectFrom('notifications').select(sql<number>`count(*)::int`.as('count'));
      if (filter.type !== undefined) query = query.where('type', '=', filter.type);
      return (await query.executeTakeFirstOrThrow()).count;
    },
    async find(owner, id) {
      if (!isNotificationId(id)) return undefined;
      const row = await ownedBy(owner).where('id', '=', id).selectAll().executeTakeFirst();
      return row === undefined ? undefined : toRecord(row as Row);
    },
    async markRead(owner, id) {
      if (!isNotificationId(id)) return undefined;
      const now = new Date();
      const updated = await db
        .updateTable('notifications')
        .set({ read_at: now, updated_at: now })
        .where('notifiable_type', '=', owner.type)
        .where('notifiable_id', '=', owner.id)
        .where('id', '=', id)
        .where('read_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      if (updated !== undefined) return { record: toRecord(updated as Row), changed: true };
      const existing = await store.find(owner, id);
      return existing === undefined ? undefined : { record: existing, changed: false };
    },
    async markAllRead(owner, filter = {}) {
      const now = new Date();
      const result = await db
        .updateTable('notifications')
        .set({ read_at: now, updated_at: now })
        .where('notifiable_type', '=', owner.type)
        .where('notifiable_id', '=', owner.id)
        .where((eb) => conditions(eb, { ...filter, status: 'unread' }))
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    async delete(owner, id) {
      if (!isNotificationId(id)) return false;
      const result = await db
        .deleteFrom('notifications')
        .where('notifiable_type', '=', owner.type)
        .where('notifiable_id', '=', owner.id)
        .where('id', '=', id)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
    async deleteAll(owner, filter = {}) {
      const result = await db
        .deleteFrom('notifications')
        .where('notifiable_type', '=', owner.type)
        .where('notifiable_id', '=', owner.id)
        .where((eb) => conditions(eb, filter))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async getPreferences(owner) {
      const rows = await db
        .selectFrom('notification_preferences')
        .select(['notification_type', 'channel', 'enabled'])
        .where('notifiable_type', '=', owner.type)
        .where('notifiable_id', '=', owner.id)
        .orderBy('notification_type')
        .orderBy('channel')
        .execute();
      return preferencesOf(rows);
    },
    async setPreferences(owner, preferences) {
      const now = new Date();
      const rows = Object.entries(preferences).flatMap(([notificationType, channels]) =>
        Object.entries(channels).map(([channel, enabled]) => ({
          notifiable_type: owner.type,
          notifiable_id: owner.id,
          notification_type: notificationType,
          channel,
          enabled,
          updated_at: now,
        })),
      );
      await root.transaction().execute(async (trx) => {
        const scoped = trx.withSchema(schemaName);
        await scoped
          .deleteFrom('notification_preferences')
          .where('notifiable_type', '=', owner.type)
          .where('notifiable_id', '=', owner.id)
          .execute();
        if (rows.length > 0) await scoped.insertInto('notification_preferences').values(rows).execute();
      });
    },
    async refusedChannels(owners, notificationType) {
      const refused = new Map<string, ReadonlySet<string>>();
      const byType = new Map<string, string[]>();
      for (const owner of owners) {
        const ids = byType.get(owner.type) ?? [];
        byType.set(owner.type, ids);
        ids.push(owner.id);
      }
      for (const [ownerType, ids] of byType) {
        for (let start = 0; start < ids.length; start += batchSize) {
          const rows = await db
            .selectFrom('notification_preferences')
            .select(['notifiable_id', 'notification_type', 'channel', 'enabled'])
            .where('notifiable_type', '=', ownerType)
            .where('notifiable_id', 'in', ids.slice(start, start + batchSize))
            .where('notification_type', 'in', [notificationType, ANY_NOTIFICATION_TYPE])
            .execute();
          const perOwner = new Map<string, typeof rows>();
          for (const row of rows)
            perOwner.set(row.notifiable_id, [...(perOwner.get(row.notifiable_id) ?? []), row]);
          for (const [id, own] of perOwner) {
            const channels = refusedChannelsOf(preferencesOf(own), notificationType);
            if (channels.size > 0) refused.set(preferenceOwnerKey({ type: ownerType, id }), channels);
          }
        }
      }
      return refused;
    },
    async claimIdempotencyKey(key, fingerprint, since) {
      await db.deleteFrom('notification_idempotency_keys').where('created_at', '<', since).execute();
      // Twice at most: a key released between the insert and the read is free again on the second turn.
      for (let attempt = 0; ; attempt++) {
        const inserted = await db
          .insertInto('notification_idempotency_keys')
          .values({ key, fingerprint, status: null, response: null })
          .onConflict((oc) => oc.column('key').doNothing())
          .returning('key')
          .executeTakeFirst();
        if (inserted !== undefined) return { state: 'claimed' };
        const row = await db
          .selectFrom('notification_idempotency_keys')
          .select(['fingerprint', 'status', 'response'])
          .where('key', '=', key)
          .executeTakeFirst();
        if (row === undefined) {
          if (attempt === 0) continue;
          // Released again at once: someone is sending with this key right now.
          return { state: 'in_progress', fingerprint };
        }
        if (row.status === null) return { state: 'in_progress', fingerprint: row.fingerprint };
        return {
          state: 'completed',
          fingerprint: row.fingerprint,
          status: row.status,
          response: row.response,
        };
      }
    },
    async completeIdempotencyKey(key, status, response) {
      await db
        .updateTable('notification_idempotency_keys')
        .set({ status, response: JSON.stringify(response) })
        .where('key', '=', key)
        .execute();
    },
    async releaseIdempotencyKey(key) {
      await db.deleteFrom('notification_idempotency_keys').where('key', '=', key).execute();
    },
    async close() {
      await root.destroy();
    },
  };

  if (options.migrate ?? true) {
    try {
      await migrate();
    } catch (error) {
      await root.destroy();
      throw error instanceof NotificationError
        ? error
        : new NotificationError('store_failed', 'opening the notification store failed', { cause: error });
    }
  }
  return store;
}
