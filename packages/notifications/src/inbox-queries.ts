import { inTab, type NotificationRow, toRecord, unexpired } from './internal/notification-rows.js';
import type { StoreConnection } from './internal/store-connection.js';
import { isNotificationId } from './notification-queries.js';
import type { InboxCounts, NotifiableKey, NotificationRecord } from './record.js';

/** What a change to one notification's inbox state did. */
export interface InboxChangeOutcome {
  readonly record: NotificationRecord;
  /** False when it was in that state already. */
  readonly changed: boolean;
}

/** The queries on inbox states: seen, archived, snoozed, and the counts per tab. */
export interface InboxQueries {
  /** Marks the notifiable's unseen notifications among `ids` seen (reading is apart) and answers how many changed. */
  markSeen(owner: NotifiableKey, ids: readonly string[]): Promise<number>;
  /** Archives one notification; `undefined` when the notifiable has no such (unexpired) notification. */
  archive(owner: NotifiableKey, id: string): Promise<InboxChangeOutcome | undefined>;
  /** Brings one archived notification back to the inbox; `undefined` as `archive`. */
  unarchive(owner: NotifiableKey, id: string): Promise<InboxChangeOutcome | undefined>;
  /** Archives every read notification in the inbox and answers how many went. */
  archiveAllRead(owner: NotifiableKey): Promise<number>;
  /**
   * Hides one notification from the inbox until `until`, when it comes back unread (and unseen); an archived one
   * comes out of the archive. `undefined` as `archive`.
   */
  snooze(owner: NotifiableKey, id: string, until: Date): Promise<InboxChangeOutcome | undefined>;
  /** The counts of every tab, in one query. */
  inboxCounts(owner: NotifiableKey): Promise<InboxCounts>;
}

/** The inbox-state queries over a store's connection, each scoped to one notifiable. */
export function createInboxQueries(connection: StoreConnection): InboxQueries {
  const { db } = connection;
  const own = (owner: NotifiableKey, now: Date) =>
    db
      .updateTable('notifications')
      .where('notifiable_type', '=', owner.type)
      .where('notifiable_id', '=', owner.id)
      .where((eb) => unexpired(eb, now));

  const findLive = async (owner: NotifiableKey, id: string, now: Date) => {
    const row = await db
      .selectFrom('notifications')
      .selectAll()
      .where('notifiable_type', '=', owner.type)
      .where('notifiable_id', '=', owner.id)
      .where('id', '=', id)
      .where((eb) => unexpired(eb, now))
      .executeTakeFirst();
    return row === undefined ? undefined : toRecord(row as NotificationRow);
  };

  /** Archives or unarchives one row; `changed` is false when it was so already. */
  const setArchived = async (owner: NotifiableKey, id: string, archived: boolean) => {
    if (!isNotificationId(id)) return undefined;
    const now = new Date();
    const updated = await own(owner, now)
      .set({ archived_at: archived ? now : null, updated_at: now })
      .where('id', '=', id)
      .where('archived_at', archived ? 'is' : 'is not', null)
      .returningAll()
      .executeTakeFirst();
    if (updated !== undefined) return { record: toRecord(updated as NotificationRow), changed: true };
    const existing = await findLive(owner, id, now);
    return existing === undefined ? undefined : { record: existing, changed: false };
  };

  return {
    async markSeen(owner, ids) {
      const valid = ids.filter(isNotificationId);
      if (valid.length === 0) return 0;
      const now = new Date();
      const result = await own(owner, now)
        .set({ seen_at: now })
        .where('id', 'in', valid)
        .where('seen_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    archive: (owner, id) => setArchived(owner, id, true),
    unarchive: (owner, id) => setArchived(owner, id, false),
    async archiveAllRead(owner) {
      const now = new Date();
      const result = await own(owner, now)
        .set({ archived_at: now, updated_at: now })
        .where((eb) => inTab(eb, 'inbox', now))
        .where('read_at', 'is not', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    async snooze(owner, id, until) {
      if (!isNotificationId(id)) return undefined;
      const now = new Date();
      const updated = await own(owner, now)
        .set({ snoozed_until: until, read_at: null, seen_at: null, archived_at: null, updated_at: now })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return updated === undefined
        ? undefined
        : { record: toRecord(updated as NotificationRow), changed: true };
    },
    async inboxCounts(owner) {
      const now = new Date();
      const row = await db
        .selectFrom('notifications')
        .where('notifiable_type', '=', owner.type)
        .where('notifiable_id', '=', owner.id)
        .where((eb) => unexpired(eb, now))
        .select((eb) => [
          eb.fn
            .countAll<number>()
            .filterWhere(inTab(eb, 'inbox', now))
            .as('inbox'),
          eb.fn
            .countAll<number>()
            .filterWhere(inTab(eb, 'unread', now))
            .as('unread'),
          eb.fn
            .countAll<number>()
            .filterWhere(inTab(eb, 'archived', now))
            .as('archived'),
          eb.fn
            .countAll<number>()
            .filterWhere(inTab(eb, 'snoozed', now))
            .as('snoozed'),
          eb.fn
            .countAll<number>()
            .filterWhere(eb.and([inTab(eb, 'inbox', now), eb('seen_at', 'is', null)]))
            .as('unseen'),
        ])
        .executeTakeFirstOrThrow();
      // count() is a bigint, which the drivers hand over as a string.
      return {
        inbox: Number(row.inbox),
        unread: Number(row.unread),
        archived: Number(row.archived),
        snoozed: Number(row.snoozed),
        unseen: Number(row.unseen),
      };
    },
  };
}
