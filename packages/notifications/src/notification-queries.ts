import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import { insertCollapsing } from './internal/collapse.js';
import { inTab, type NotificationRow as Row, toRecord, unexpired } from './internal/notification-rows.js';
import type { Database } from './internal/schema.js';
import type { StoreConnection } from './internal/store-connection.js';
import type { InboxTab, NewNotificationRecord, NotifiableKey, NotificationRecord } from './record.js';

/** Which of a notifiable's notifications a list or a bulk change covers. */
export interface NotificationFilter {
  readonly status?: 'all' | 'read' | 'unread' | undefined;
  /** The notification type (class name). */
  readonly type?: string | undefined;
  /** Only notifications created before this time. */
  readonly before?: Date | undefined;
  /**
   * Only the notifications a tab holds (archived, snoozed…); a list without one shows the inbox, a bulk
   * change without one covers every tab.
   */
  readonly tab?: InboxTab | undefined;
}

/** One page of a notifiable's notifications, newest first, with the counts a list answer needs. */
export interface NotificationPage {
  readonly records: readonly NotificationRecord[];
  /** How many match the filter, on every page. */
  readonly total: number;
  /** How many of the notifiable's inbox notifications are unread, whatever the filter. */
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
  /** How many of a notifiable's inbox notifications (not archived, snoozed or expired) are unread. */
  unreadCount(owner: NotifiableKey): Promise<number>;
  /** How many notifications are stored for every notifiable together, optionally of one type. */
  count(filter?: { type?: string | undefined }): Promise<number>;
  /** One unexpired notification, only if it belongs to the notifiable. */
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

function matching(
  eb: ExpressionBuilder<Database, 'notifications'>,
  filter: NotificationFilter,
  now = new Date(),
): Expression<SqlBool> {
  const parts: Expression<SqlBool>[] = [];
  if (filter.tab !== undefined) parts.push(inTab(eb, filter.tab, now));
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
      .where((eb) => inTab(eb, 'unread', new Date()))
      .select(sql<number>`count(*)::int`.as('count'))
      .executeTakeFirstOrThrow();
    return row.count;
  };

  const find = async (owner: NotifiableKey, id: string): Promise<NotificationRecord | undefined> => {
    if (!isNotificationId(id)) return undefined;
    const row = await ownedBy(owner)
      .where('id', '=', id)
      .where((eb) => unexpired(eb, new Date()))
      .selectAll()
      .executeTakeFirst();
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
        expires_at: record.expires_at ?? null,
        collapse_key: record.collapse_key ?? null,
      }));
      await connection.transaction(async (trx) => {
        for (let start = 0; start < rows.length; start += batchSize) {
          const batch = rows.slice(start, start + batchSize);
          // Only sends with a collapse key pay for the look-up of the rows they replace.
          if (batch.some((row) => row.collapse_key !== null)) await insertCollapsing(trx, batch, now);
          else await trx.insertInto('notifications').values(batch).execute();
        }
      });
    },
    async list(owner, { page, limit }, given = {}) {
      const filter: NotificationFilter = { ...given, tab: given.tab ?? 'inbox' };
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
        .where((eb) => unexpired(eb, now))
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
