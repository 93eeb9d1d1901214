import { type Insertable, type Kysely, sql } from 'kysely';
import type { Database, NotificationsTable } from './schema.js';

/** The most actor names a collapsed notification keeps: enough for "Ada, Bo and 8 others". */
export const MAX_COLLAPSE_ACTORS = 10;

type NewRow = Insertable<NotificationsTable>;

interface Folded {
  count: number;
  actors: string[];
}

const keyOf = (type: string, id: string, key: string) => JSON.stringify([type, id, key]);

function actorOf(data: string): string | undefined {
  const actor = (JSON.parse(data) as { actor?: unknown }).actor;
  return typeof actor === 'string' && actor !== '' ? actor : undefined;
}

/**
 * Inserts rows, some with a collapse key: each replaces its recipient's unread, unarchived notification with
 * the same key, and stands for it and every one that one stood for (`collapse_count`, `collapse_actors`). An
 * expired one is removed without being counted. A replaced one's pending away delivery goes with it: the new one
 * (scheduled by the sender next) is the only away delivery of the collapsed item. Runs inside the caller's
 * transaction.
 */
export async function insertCollapsing(
  trx: Kysely<Database>,
  rows: readonly NewRow[],
  now: Date,
): Promise<void> {
  const keyed = rows.filter((row) => row.collapse_key != null);
  const folded = new Map<string, Folded>();
  if (keyed.length > 0) {
    const tuples = sql.join(
      keyed.map((row) => sql`(${row.notifiable_type}, ${row.notifiable_id}, ${row.collapse_key})`),
    );
    const replaced = await trx
      .deleteFrom('notifications')
      .where('collapse_key', 'is not', null)
      .where('read_at', 'is', null)
      .where('archived_at', 'is', null)
      .where(sql<boolean>`(notifiable_type, notifiable_id, collapse_key) in (${tuples})`)
      .returning([
        'id',
        'notifiable_type',
        'notifiable_id',
        'collapse_key',
        'collapse_count',
        'collapse_actors',
        'expires_at',
        'created_at',
      ])
      .execute();
    if (replaced.length > 0) {
      await trx
        .deleteFrom('notification_away_deliveries')
        .where(
          'notification_id',
          'in',
          replaced.map((old) => old.id),
        )
        .execute();
    }
    // Oldest first, so the actors of the newest replaced one end up first.
    replaced.sort((a, b) => new Date(a.created_at).getTime() - new Date(b.created_at).getTime());
    for (const old of replaced) {
      if (old.expires_at !== null && new Date(old.expires_at) <= now) continue;
      const key = keyOf(old.notifiable_type, old.notifiable_id, old.collapse_key as string);
      const entry = folded.get(key) ?? { count: 0, actors: [] };
      folded.set(key, {
        count: entry.count + old.collapse_count,
        actors: [...old.collapse_actors, ...entry.actors],
      });
    }
  }
  const values = rows.map((row) => {
    if (row.collapse_key == null) return row;
    const before = folded.get(keyOf(row.notifiable_type, row.notifiable_id, row.collapse_key));
    const actor = actorOf(row.data);
    const actors = [...new Set([...(actor ? [actor] : []), ...(before?.actors ?? [])])].slice(
      0,
      MAX_COLLAPSE_ACTORS,
    );
    return {
      ...row,
      collapse_count: 1 + (before?.count ?? 0),
      collapse_actors: JSON.stringify(actors),
    };
  });
  await trx.insertInto('notifications').values(values).execute();
}
