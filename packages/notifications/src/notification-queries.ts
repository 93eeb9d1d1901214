import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import type { Database } from './internal/schema.js';
import type { StoreConnection } from './internal/store-connection.js';
import type { NotificationData } from './notification-data.js';
import type { NewNotificationRecord, NotifiableKey, NotificationRecord } from './record.js';

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

/** The queries on stored notifications: writing, listing, counting, marking read, deleting. */
export interface NotificationQueries {
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

function matching(
  eb: ExpressionBuilder<Database, 'notifications'>,
  filter: NotificationFilter,
): Expression<SqlBool> {
  const parts: Expression<SqlBool>[] = [];
  if (filter.status === 'read') parts.push(eb('read_at', 'is not', null));
  if (filter.status === 'unread') parts.push(eb('read_at', 'is', null));
  if (filter.type !== undefined) parts.push(eb('type', '=', filter.type));
  if (filter.before !== undefined) parts.push(eb('created_at', '<', filter.before));
  return eb.and(parts);
}

/** The rows an update or a delete may touch: the notifiable's own (one of them, given `id`) that match. */
function ownRows(owner: NotifiableKey, filter: NotificationFilter & { readonly id?: string }) {
  return (eb: ExpressionBuilder<Database, 'notifications'>): Expression<SqlBool> =>
    eb.and([
      eb('notifiable_type', '=', owner.type),
      eb('notifiable_id', '=', owner.id),
      ...(filter.id === undefined ? [] : [eb('id', '=', filter.id)]),
      matching(eb, filter),
    ]);
}

/** The queries on the `notifications` table, every one but `count` scoped to one notifiable. */
export function createNotificationQueries(
  connection: StoreConnection,
  batchSize: number,
): NotificationQueries {
  const { db } = connection;
  const ownedBy = (owner: NotifiableKey) =>
    db
      .selectFrom('notifications')
      .where('notifiable_type', '=', owner.type)
      .where('notifiable_id', '=', owner.id);

  const unreadCount = async (owner: NotifiableKey): Promise<number> => {
    const row = await ownedBy(owner)
      .where('read_at', 'is', null)
      .select(sql<number>`count(*)::int`.as('count'))
      .executeTakeFirstOrThrow();
    return row.count;
  };

  const find = async (owner: NotifiableKey, id: string): Promise<NotificationRecord | undefined> => {
    if (!isNotificationId(id)) return undefined;
    const row = await ownedBy(owner).where('id', '=', id).selectAll().executeTakeFirst();
    return row === undefined ? undefined : toRecord(row as Row);
  };

  return {
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
      await connection.transaction(async (trx) => {
        for (let start = 0; start < rows.length; start += batchSize) {
          await trx
            .insertInto('notifications')
            .values(rows.slice(start, start + batchSize))
            .execute();
        }
      });
    },
    async list(owner, { page, limit }, filter = {}) {
      const [rows, total, unread] = await Promise.all([
        ownedBy(owner)
          .where((eb) => matching(eb, filter))
          .selectAll()
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(limit)
          .offset((page - 1) * limit)
          .execute(),
        ownedBy(owner)
          .where((eb) => matching(eb, filter))
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
    find,
    async markRead(owner, id) {
      if (!isNotificationId(id)) return undefined;
      const now = new Date();
      const updated = await db
        .updateTable('notifications')
        .set({ read_at: now, updated_at: now })
        .where(ownRows(owner, { id, status: 'unread' }))
        .returningAll()
        .executeTakeFirst();
      if (updated !== undefined) return { record: toRecord(updated as Row), changed: true };
      const existing = await find(owner, id);
      return existing === undefined ? undefined : { record: existing, changed: false };
    },
    async markAllRead(owner, filter = {}) {
      const now = new Date();
      const result = await db
        .updateTable('notifications')
        .set({ read_at: now, updated_at: now })
        .where(ownRows(owner, { ...filter, status: 'unread' }))
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    async delete(owner, id) {
      if (!isNotificationId(id)) return false;
      const result = await db.deleteFrom('notifications').where(ownRows(owner, { id })).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
    async deleteAll(owner, filter = {}) {
      const result = await db.deleteFrom('notifications').where(ownRows(owner, filter)).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
