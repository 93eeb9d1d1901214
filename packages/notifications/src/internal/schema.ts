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
  // Inbox states (migration 0006).
  seen_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  archived_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  snoozed_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  expires_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  collapse_key: ColumnType<string | null, string | null | undefined, string | null>;
  collapse_count: ColumnType<number, number | undefined, number>;
  /** The actors' names (`data.actor`) of the notifications folded into this one, newest first, a JSON array. */
  collapse_actors: ColumnType<string[], string | undefined, string>;
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

/** An away delivery waiting for its time: one notification for one notifiable, and where it may go. */
export interface AwayDeliveriesTable {
  notification_id: string;
  notification_type: string;
  notifiable_type: string;
  notifiable_id: string;
  data: ColumnType<unknown, string, string>;
  /** The away channel names, a JSON array. */
  channels: ColumnType<string[], string, string>;
  /** Where each channel delivers (`{"email": "ada@example.com"}`), a JSON object. */
  routes: ColumnType<Record<string, string>, string, string>;
  /** True when it may share a digest with others to the same notifiable. */
  digest: boolean;
  /** When it goes out: its delay's end, or the end of the digest window it joined. */
  send_at: Date;
  created_at: ColumnType<Date, Date | undefined, Date>;
}

/** Where a notifiable is reached on a channel (their email address), as their user token last said. */
export interface AddressesTable {
  notifiable_type: string;
  notifiable_id: string;
  channel: string;
  address: string;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

/**
 * One row per recipient who has had a digest: locked (`INSERT … ON CONFLICT DO UPDATE`) while a delivery opens or
 * joins one of their digests and (`SELECT … FOR UPDATE`) while one is taken to be sent, so that concurrent sends
 * agree on one digest and none joins a digest already on its way (migration 0007).
 */
export interface AwayRecipientsTable {
  notifiable_type: string;
  notifiable_id: string;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

// --- Web Push (migration 0005) ---

/** One browser (device) a notifiable turned Web Push on in; a push service's endpoint belongs to one notifiable. */
export interface PushSubscriptionsTable {
  endpoint: string;
  notifiable_type: string;
  notifiable_id: string;
  /** The browser's P-256 public key (base64url), for RFC 8291 encryption. */
  p256dh: string;
  /** The browser's 16-byte authentication secret (base64url). */
  auth: string;
  user_agent: string | null;
  label: string | null;
  /** When the push service says the subscription ends (`expirationTime`), if it does. */
  expires_at: Date | null;
  created_at: ColumnType<Date, Date | undefined, Date>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

/** The VAPID key pair generated once for a service that was given none, so restarts keep subscriptions valid. */
export interface VapidKeysTable {
  /** Always 1: one key pair per store. */
  id: number;
  public_key: string;
  private_key: string;
  created_at: ColumnType<Date, Date | undefined, Date>;
}

// --- end Web Push ---

export interface Database {
  notifications: NotificationsTable;
  notification_addresses: AddressesTable;
  notification_away_deliveries: AwayDeliveriesTable;
  notification_away_recipients: AwayRecipientsTable;
  notification_idempotency_keys: IdempotencyKeysTable;
  notification_preferences: PreferencesTable;
  notification_push_subscriptions: PushSubscriptionsTable;
  notification_vapid_keys: VapidKeysTable;
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
  '0004_create_notification_away_deliveries_and_addresses': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('notification_away_deliveries')
        .ifNotExists()
        .addColumn('notification_id', 'uuid', (col) => col.primaryKey())
        .addColumn('notification_type', 'varchar(255)', (col) => col.notNull())
        .addColumn('notifiable_type', 'varchar(255)', (col) => col.notNull())
        .addColumn('notifiable_id', 'varchar(255)', (col) => col.notNull())
        .addColumn('data', 'jsonb', (col) => col.notNull())
        .addColumn('channels', 'jsonb', (col) => col.notNull())
        .addColumn('routes', 'jsonb', (col) => col.notNull())
        .addColumn('digest', 'boolean', (col) => col.notNull())
        .addColumn('send_at', 'timestamptz', (col) => col.notNull())
        .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
        .execute();
      // The scheduler takes what is due, earliest first.
      await db.schema
        .createIndex('notification_away_deliveries_send_at_idx')
        .ifNotExists()
        .on('notification_away_deliveries')
        .column('send_at')
        .execute();
      // A new delivery looks for an open digest of the same notifiable.
      await db.schema
        .createIndex('notification_away_deliveries_notifiable_idx')
        .ifNotExists()
        .on('notification_away_deliveries')
        .columns(['notifiable_type', 'notifiable_id', 'send_at'])
        .execute();
      await db.schema
        .createTable('notification_addresses')
        .ifNotExists()
        .addColumn('notifiable_type', 'varchar(255)', (col) => col.notNull())
        .addColumn('notifiable_id', 'varchar(255)', (col) => col.notNull())
        .addColumn('channel', 'varchar(255)', (col) => col.notNull())
        .addColumn('address', 'varchar(1024)', (col) => col.notNull())
        .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
        .addPrimaryKeyConstraint('notification_addresses_pk', ['notifiable_type', 'notifiable_id', 'channel'])
        .execute();
    },
  },
  '0005_create_notification_push_subscriptions': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('notification_push_subscriptions')
        .ifNotExists()
        // The push service's URL for one browser: unique, so a browser shared by two users is the last one's.
        .addColumn('endpoint', 'text', (col) => col.primaryKey())
        .addColumn('notifiable_type', 'varchar(255)', (col) => col.notNull())
        .addColumn('notifiable_id', 'varchar(255)', (col) => col.notNull())
        .addColumn('p256dh', 'varchar(255)', (col) => col.notNull())
        .addColumn('auth', 'varchar(255)', (col) => col.notNull())
        .addColumn('user_agent', 'varchar(512)')
        .addColumn('label', 'varchar(255)')
        .addColumn('expires_at', 'timestamptz')
        .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
        .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
        .execute();
      // A push goes to every device of one notifiable.
      await db.schema
        .createIndex('notification_push_subscriptions_notifiable_idx')
        .ifNotExists()
        .on('notification_push_subscriptions')
        .columns(['notifiable_type', 'notifiable_id'])
        .execute();
      await db.schema
        .createTable('notification_vapid_keys')
        .ifNotExists()
        .addColumn('id', 'smallint', (col) => col.primaryKey())
        .addColumn('public_key', 'varchar(255)', (col) => col.notNull())
        .addColumn('private_key', 'varchar(255)', (col) => col.notNull())
        .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
        .execute();
    },
  },
  '0006_add_notification_inbox_states': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('notifications')
        .addColumn('seen_at', 'timestamptz')
        .addColumn('archived_at', 'timestamptz')
        .addColumn('snoozed_until', 'timestamptz')
        .addColumn('expires_at', 'timestamptz')
        .addColumn('collapse_key', 'varchar(255)')
        .addColumn('collapse_count', 'integer', (col) => col.notNull().defaultTo(1))
        .addColumn('collapse_actors', 'jsonb', (col) => col.notNull().defaultTo(sql`'[]'::jsonb`))
        .execute();
      // A new notification with a collapse key looks for the unread one it replaces.
      await db.schema
        .createIndex('notifications_collapse_idx')
        .ifNotExists()
        .on('notifications')
        .columns(['notifiable_type', 'notifiable_id', 'collapse_key'])
        .where(sql.ref('collapse_key'), 'is not', null)
        .execute();
    },
  },
  '0007_create_notification_away_recipients': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('notification_away_recipients')
        .ifNotExists()
        .addColumn('notifiable_type', 'varchar(255)', (col) => col.notNull())
        .addColumn('notifiable_id', 'varchar(255)', (col) => col.notNull())
        .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
        .addPrimaryKeyConstraint('notification_away_recipients_pk', ['notifiable_type', 'notifiable_id'])
        .execute();
    },
  },
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
