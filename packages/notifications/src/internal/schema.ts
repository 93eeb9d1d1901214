import {
  type ColumnType,
  type Generated,
  type Kysely,
  type Migration,
  type MigrationProvider,
  sql,
} from 'kysely';
import type { NotificationData } from '../notification-data.js';

/** The `notifications` table as the query builder sees it. */
export interface NotificationsTable {
  id: string;
  type: string;
  notifiable_type: string;
  notifiable_id: string;
  data: ColumnType<NotificationData, string, string>;
  read_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: ColumnType<Date, Date | undefined, Date>;
  updated_at: Generated<Date>;
}

/** Idempotency keys of the send API: one row per key, holding the answer once the send is done. */
export interface IdempotencyKeysTable {
  key: string;
  fingerprint: string;
  status: number | null;
  response: ColumnType<unknown, string | null, string | null>;
  created_at: ColumnType<Date, Date | undefined, Date>;
}

/** One user's choice for one notification type (or `*`) and one channel. */
export interface PreferencesTable {
  notifiable_type: string;
  notifiable_id: string;
  notification_type: string;
  channel: string;
  enabled: boolean;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface Database {
  notifications: NotificationsTable;
  notification_idempotency_keys: IdempotencyKeysTable;
  notification_preferences: PreferencesTable;
}

// Migrations are code, not files, so the built package carries them; names sort in the order they apply.
const migrations: Record<string, Migration> = {
  '0001_create_notifications': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('notifications')
        .ifNotExists()
        .addColumn('id', 'uuid', (col) => col.primaryKey())
        .addColumn('type', 'varchar(255)', (col) => col.notNull())
        .addColumn('notifiable_type', 'varchar(255)', (col) => col.notNull())
        .addColumn('notifiable_id', 'varchar(255)', (col) => col.notNull())
        .addColumn('data', 'jsonb', (col) => col.notNull())
        .addColumn('read_at', 'timestamptz')
        .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
        .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
        .execute();
      // The list query: one notifiable's rows, newest first.
      await db.schema
        .createIndex('notifications_notifiable_created_idx')
        .ifNotExists()
        .on('notifications')
        .columns(['notifiable_type', 'notifiable_id', 'created_at desc', 'id desc'])
        .execute();
      // The unread badge and the unread list only touch unread rows.
      await db.schema
        .createIndex('notifications_notifiable_unread_idx')
        .ifNotExists()
        .on('notifications')
        .columns(['notifiable_type', 'notifiable_id', 'created_at desc'])
        .where(sql.ref('read_at'), 'is', null)
        .execute();
      await db.schema
        .createIndex('notifications_type_idx')
        .ifNotExists()
        .on('notifications')
        .column('type')
        .execute();
    },
  },
  '0002_create_notification_idempotency_keys': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('notification_idempotency_keys')
        .ifNotExists()
        .addColumn('key', 'varchar(255)', (col) => col.primaryKey())
        // sha-256 of the request, so a retry with another body is told apart from a true retry.
        .addColumn('fingerprint', 'char(64)', (col) => col.notNull())
        // null while the first request is still sending.
        .addColumn('status', 'integer')
        .addColumn('response', 'jsonb')
        .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
        .execute();
      await db.schema
        .createIndex('notification_idempotency_keys_created_idx')
        .ifNotExists()
        .on('notification_idempotency_keys')
        .column('created_at')
        .execute();
    },
  },
  '0003_create_notification_preferences': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('notification_preferences')
        .ifNotExists()
        .addColumn('notifiable_type', 'varchar(255)', (col) => col.notNull())
        .addColumn('notifiable_id', 'varchar(255)', (col) => col.notNull())
        // A notification type, or `*` for every type without an entry of its own.
        .addColumn('notification_type', 'varchar(255)', (col) => col.notNull())
        .addColumn('channel', 'varchar(255)', (col) => col.notNull())
        .addColumn('enabled', 'boolean', (col) => col.notNull())
        .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
        .addPrimaryKeyConstraint('notification_preferences_pk', [
          'notifiable_type',
          'notifiable_id',
          'notification_type',
          'channel',
        ])
        .execute();
    },
  },
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
