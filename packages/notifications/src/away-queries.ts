import { sql } from 'kysely';
import type { StoreConnection } from './internal/store-connection.js';
import type { NotifiableKey } from './record.js';

/** An away delivery to keep until its time. */
export interface NewAwayDelivery {
  /** The notification's id, as the other channels saw it. */
  readonly id: string;
  readonly type: string;
  readonly owner: NotifiableKey;
  /** What `toDatabase()` gave: the away channels build their message from it. */
  readonly data: unknown;
  readonly channels: readonly string[];
  /** Where each channel delivers for this owner (`{ email: 'ada@example.com' }`). */
  readonly routes: Readonly<Record<string, string>>;
  /** When its delay ends. */
  readonly dueAt: Date;
  /** The digest window in seconds (0: it goes out alone). */
  readonly digestWindowSeconds: number;
}

/** An away delivery taken from the store because its time came. */
export interface DueAwayDelivery extends Omit<NewAwayDelivery, 'dueAt' | 'digestWindowSeconds'> {
  /** True when it may share a digest with others to the same owner. */
  readonly digest: boolean;
  /** When it was to go out: its own time, or its digest's. */
  readonly sendAt: Date;
  readonly createdAt: Date;
}

/** The away deliveries' table: kept in the store so that a delay outlives a restart. */
export interface AwayQueries {
  /** Keeps deliveries; one joining an open digest of its owner takes that digest's time. */
  add(deliveries: readonly NewAwayDelivery[]): Promise<void>;
  /** Takes (and removes) up to `limit` deliveries due by `now`, earliest first. */
  takeDue(now: Date, limit: number): Promise<DueAwayDelivery[]>;
  /** When the next delivery is due; `undefined` when none waits. */
  nextDue(): Promise<Date | undefined>;
  /** The ids among `ids` whose stored notification has been read. */
  readIds(ids: readonly string[]): Promise<Set<string>>;
  /** The ids among `ids` whose stored notification has expired by `now` (inbox states): never delivered. */
  expiredIds(ids: readonly string[], now: Date): Promise<Set<string>>;
  /** Keeps where a notifiable is reached on a channel (their email address). */
  rememberAddress(owner: NotifiableKey, channel: string, address: string): Promise<void>;
  /** Where a notifiable is reached, by channel. */
  addressesOf(owner: NotifiableKey): Promise<Record<string, string>>;
}

/** The away deliveries' queries over a store's connection. */
export function createAwayQueries(connection: StoreConnection): AwayQueries {
  const table = 'notification_away_deliveries' as const;
  return {
    async add(deliveries) {
      // One transaction, so that deliveries of one send joining the same digest agree on its time.
      await connection.transaction(async (trx) => {
        for (const delivery of deliveries) {
          let sendAt = delivery.dueAt;
          const digest = delivery.digestWindowSeconds > 0;
          if (digest) {
            // The window is counted from the first delivery due: join a digest still open at this one's time.
            const open = await trx
              .selectFrom(table)
              .select('send_at')
              .where('notifiable_type', '=', delivery.owner.type)
              .where('notifiable_id', '=', delivery.owner.id)
              .where('digest', '=', true)
              .where('send_at', '>=', delivery.dueAt)
              .orderBy('send_at')
              .limit(1)
              .executeTakeFirst();
            sendAt = open
              ? new Date(open.send_at)
              : new Date(delivery.dueAt.getTime() + delivery.digestWindowSeconds * 1000);
          }
          await trx
            .insertInto(table)
            .values({
              notification_id: delivery.id,
              notification_type: delivery.type,
              notifiable_type: delivery.owner.type,
              notifiable_id: delivery.owner.id,
              data: JSON.stringify(delivery.data ?? null),
              channels: JSON.stringify(delivery.channels),
              routes: JSON.stringify(delivery.routes),
              digest,
              send_at: sendAt,
            })
            .onConflict((conflict) => conflict.column('notification_id').doNothing())
            .execute();
        }
      });
    },
    async takeDue(now, limit) {
      const rows = await connection.transaction(async (trx) => {
        const due = await trx
          .selectFrom(table)
          .select(['notification_id', 'send_at'])
          .where('send_at', '<=', now)
          .orderBy('send_at')
          .limit(limit)
          .forUpdate()
          .skipLocked()
          .execute();
        const last = due.at(-1);
        if (last === undefined) return [];
        // A digest's deliveries share their time: take all of the last one, so the limit never splits a digest.
        const rest =
          due.length < limit
            ? []
            : await trx
                .selectFrom(table)
                .select(['notification_id', 'send_at'])
                .where('send_at', '=', last.send_at)
                .forUpdate()
                .skipLocked()
                .execute();
        const ids = [...new Set([...due, ...rest].map((row) => row.notification_id))];
        return trx.deleteFrom(table).where('notification_id', 'in', ids).returningAll().execute();
      });
      return rows
        .map((row) => ({
          id: row.notification_id,
          type: row.notification_type,
          owner: { type: row.notifiable_type, id: row.notifiable_id },
          data: row.data,
          channels: row.channels,
          routes: row.routes,
          digest: row.digest,
          sendAt: new Date(row.send_at),
          createdAt: new Date(row.created_at),
        }))
        .sort(
          (a, b) => a.sendAt.getTime() - b.sendAt.getTime() || a.createdAt.getTime() - b.createdAt.getTime(),
        );
    },
    async nextDue() {
      const row = await connection.db
        .selectFrom(table)
        .select(sql<Date | null>`min(send_at)`.as('next'))
        .executeTakeFirst();
      return row?.next ? new Date(row.next) : undefined;
    },
    async readIds(ids) {
      if (ids.length === 0) return new Set();
      const rows = await connection.db
        .selectFrom('notifications')
        .select('id')
        .where('id', 'in', ids)
        .where('read_at', 'is not', null)
        .execute();
      return new Set(rows.map((row) => row.id));
    },
    async expiredIds(ids, now) {
      if (ids.length === 0) return new Set();
      const rows = await connection.db
        .selectFrom('notifications')
        .select('id')
        .where('id', 'in', ids)
        .where('expires_at', '<=', now)
        .execute();
      return new Set(rows.map((row) => row.id));
    },
    async rememberAddress(owner, channel, address) {
      await connection.db
        .insertInto('notification_addresses')
        .values({
          notifiable_type: owner.type,
          notifiable_id: owner.id,
          channel,
          address,
          updated_at: new Date(),
        })
        .onConflict((conflict) =>
          conflict
            .columns(['notifiable_type', 'notifiable_id', 'channel'])
            .doUpdateSet({ address, updated_at: new Date() }),
        )
        .execute();
    },
    async addressesOf(owner) {
      const rows = await connection.db
        .selectFrom('notification_addresses')
        .select(['channel', 'address'])
        .where('notifiable_type', '=', owner.type)
        .where('notifiable_id', '=', owner.id)
        .execute();
      return Object.fromEntries(rows.map((row) => [row.channel, row.address]));
    },
  };
}
