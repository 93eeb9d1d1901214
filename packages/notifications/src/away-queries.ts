import { type Kysely, sql } from 'kysely';
import type { CollapseCount } from './channel.js';
import type { Database } from './internal/schema.js';
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

/** What away delivery reads of the stored notifications when their deliveries go out. */
export interface AwayInboxStates {
  /** Never to be delivered: read in the bell, or expired (inbox states). */
  readonly cancelled: ReadonlySet<string>;
  /** Those standing for several (collapse key): how many, and the actors' names, newest first. */
  readonly collapsed: ReadonlyMap<string, CollapseCount>;
}

/** The away deliveries' table: kept in the store so that a delay outlives a restart. */
export interface AwayQueries {
  /**
   * Keeps deliveries; one joining an open digest of its owner takes that digest's time. Sends to one owner at once
   * agree on one digest: each holds the owner's row in `notification_away_recipients` while it decides.
   */
  add(deliveries: readonly NewAwayDelivery[]): Promise<void>;
  /**
   * Takes (and removes) up to `limit` deliveries due by `now`, earliest first, and every delivery of each digest
   * among them (a digest is never split); a digest a send is joining right now waits for the next look.
   */
  takeDue(now: Date, limit: number): Promise<DueAwayDelivery[]>;
  /** When the next delivery is due; `undefined` when none waits. */
  nextDue(): Promise<Date | undefined>;
  /** What the store says now of the notifications behind `ids` (see {@link AwayInboxStates}). */
  inboxStates(ids: readonly string[], now: Date): Promise<AwayInboxStates>;
  /** Keeps where a notifiable is reached on a channel (their email address). */
  rememberAddress(owner: NotifiableKey, channel: string, address: string): Promise<void>;
  /** Where a notifiable is reached, by channel. */
  addressesOf(owner: NotifiableKey): Promise<Record<string, string>>;
}

type Trx = Kysely<Database>;

const ownerKey = (type: string, id: string) => JSON.stringify([type, id]);

/**
 * Locks the rows of these recipients in `notification_away_recipients` (made when missing) until the transaction
 * ends: a concurrent send to one of them waits here, then sees the digest this one opened. Always in one order, so
 * two sends locking the same recipients cannot deadlock.
 */
async function lockRecipients(trx: Trx, owners: readonly NotifiableKey[]): Promise<void> {
  const unique = new Map(owners.map((owner) => [ownerKey(owner.type, owner.id), owner]));
  const sorted = [...unique.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, o]) => o);
  const now = new Date();
  for (let start = 0; start < sorted.length; start += 1000) {
    await trx
      .insertInto('notification_away_recipients')
      .values(
        sorted
          .slice(start, start + 1000)
          .map((owner) => ({ notifiable_type: owner.type, notifiable_id: owner.id, updated_at: now })),
      )
      // DO UPDATE, not DO NOTHING: only an update locks a row that is already there.
      .onConflict((conflict) =>
        conflict.columns(['notifiable_type', 'notifiable_id']).doUpdateSet({ updated_at: now }),
      )
      .execute();
  }
}

/** When a delivery goes out: its own time, the time of an open digest it joins, or the end of a new window. */
async function sendAtOf(trx: Trx, delivery: NewAwayDelivery): Promise<Date> {
  if (delivery.digestWindowSeconds <= 0) return delivery.dueAt;
  // The window is counted from the first delivery due: join a digest still open at this one's time.
  const open = await trx
    .selectFrom('notification_away_deliveries')
    .select('send_at')
    .where('notifiable_type', '=', delivery.owner.type)
    .where('notifiable_id', '=', delivery.owner.id)
    .where('digest', '=', true)
    .where('send_at', '>=', delivery.dueAt)
    .orderBy('send_at')
    .limit(1)
    .executeTakeFirst();
  return open
    ? new Date(open.send_at)
    : new Date(delivery.dueAt.getTime() + delivery.digestWindowSeconds * 1000);
}

/**
 * The recipients among `owners` whose digests may be taken now: those no send holds (it is adding to one of their
 * digests; they wait for the next look). Never waits, so taking cannot deadlock with sending.
 */
async function recipientsFree(trx: Trx, owners: readonly NotifiableKey[]): Promise<Set<string>> {
  if (owners.length === 0) return new Set();
  const tuples = sql.join(owners.map((owner) => sql`(${owner.type}, ${owner.id})`));
  const where = sql<boolean>`(notifiable_type, notifiable_id) in (${tuples})`;
  const locked = await trx
    .selectFrom('notification_away_recipients')
    .select(['notifiable_type', 'notifiable_id'])
    .where(where)
    .forUpdate()
    .skipLocked()
    .execute();
  const existing = await trx
    .selectFrom('notification_away_recipients')
    .select(['notifiable_type', 'notifiable_id'])
    .where(where)
    .execute();
  const free = new Set(locked.map((row) => ownerKey(row.notifiable_type, row.notifiable_id)));
  const known = new Set(existing.map((row) => ownerKey(row.notifiable_type, row.notifiable_id)));
  // Digests kept before migration 0007 have no row; nobody adds to them without making one.
  for (const owner of owners)
    if (!known.has(ownerKey(owner.type, owner.id))) free.add(ownerKey(owner.type, owner.id));
  return free;
}

/** The away deliveries' queries over a store's connection. */
export function createAwayQueries(connection: StoreConnection): AwayQueries {
  const table = 'notification_away_deliveries' as const;
  return {
    async add(deliveries) {
      // One transaction, holding the recipients' rows: deliveries joining a digest, from this send or from
      // concurrent ones, agree on its time, and none joins a digest being taken.
      await connection.transaction(async (trx) => {
        await lockRecipients(
          trx,
          deliveries.filter((delivery) => delivery.digestWindowSeconds > 0).map((delivery) => delivery.owner),
        );
        for (const delivery of deliveries) {
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
              digest: delivery.digestWindowSeconds > 0,
              send_at: await sendAtOf(trx, delivery),
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
          .select(['notification_id', 'send_at', 'digest', 'notifiable_type', 'notifiable_id'])
          .where('send_at', '<=', now)
          .orderBy('send_at')
          .limit(limit)
          .forUpdate()
          .skipLocked()
          .execute();
        if (due.length === 0) return [];
        const digestOwners = due
          .filter((row) => row.digest)
          .map((row) => ({ type: row.notifiable_type, id: row.notifiable_id }));
        const free = await recipientsFree(trx, digestOwners);
        const taken = due.filter(
          (row) => !row.digest || free.has(ownerKey(row.notifiable_type, row.notifiable_id)),
        );
        if (taken.length === 0) return [];
        // A digest goes whole: with every delivery of it, also those past the limit or joined since the first read.
        const digests = new Map<string, { type: string; id: string; sendAt: Date }>();
        for (const row of taken.filter((r) => r.digest)) {
          const sendAt = new Date(row.send_at);
          digests.set(JSON.stringify([row.notifiable_type, row.notifiable_id, sendAt.getTime()]), {
            type: row.notifiable_type,
            id: row.notifiable_id,
            sendAt,
          });
        }
        const ids = taken.map((row) => row.notification_id);
        return trx
          .deleteFrom(table)
          .where((eb) =>
            digests.size === 0
              ? eb('notification_id', 'in', ids)
              : eb.or([
                  eb('notification_id', 'in', ids),
                  eb.and([
                    eb('digest', '=', true),
                    sql<boolean>`(notifiable_type, notifiable_id, send_at) in (${sql.join(
                      [...digests.values()].map((d) => sql`(${d.type}, ${d.id}, ${d.sendAt})`),
                    )})`,
                  ]),
                ]),
          )
          .returningAll()
          .execute();
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
    async inboxStates(ids, now) {
      const cancelled = new Set<string>();
      const collapsed = new Map<string, CollapseCount>();
      if (ids.length === 0) return { cancelled, collapsed };
      const rows = await connection.db
        .selectFrom('notifications')
        .select(['id', 'read_at', 'expires_at', 'collapse_count', 'collapse_actors'])
        .where('id', 'in', ids)
        .execute();
      for (const row of rows) {
        const expired = row.expires_at !== null && new Date(row.expires_at) <= now;
        if (row.read_at !== null || expired) cancelled.add(row.id);
        if (row.collapse_count > 1) {
          collapsed.set(row.id, { count: row.collapse_count, actors: row.collapse_actors });
        }
      }
      return { cancelled, collapsed };
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
