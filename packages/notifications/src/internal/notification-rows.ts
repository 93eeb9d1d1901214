import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { NotificationData } from '../notification-data.js';
import type { InboxTab, NotificationRecord } from '../record.js';
import type { Database } from './schema.js';

/** A `notifications` row as the driver returns it. */
export interface NotificationRow {
  id: string;
  type: string;
  notifiable_type: string;
  notifiable_id: string;
  data: NotificationData;
  read_at: Date | null;
  seen_at: Date | null;
  archived_at: Date | null;
  snoozed_until: Date | null;
  expires_at: Date | null;
  collapse_key: string | null;
  collapse_count: number;
  collapse_actors: string[];
  created_at: Date;
  updated_at: Date;
}

const iso = (value: Date | null): string | null => (value === null ? null : value.toISOString());

/** A row as the JSON API serves it: times as ISO-8601 strings. */
export function toRecord(row: NotificationRow): NotificationRecord {
  return {
    id: row.id,
    type: row.type,
    notifiable_type: row.notifiable_type,
    notifiable_id: row.notifiable_id,
    data: row.data,
    read_at: iso(row.read_at),
    seen_at: iso(row.seen_at),
    archived_at: iso(row.archived_at),
    snoozed_until: iso(row.snoozed_until),
    expires_at: iso(row.expires_at),
    collapse_key: row.collapse_key,
    collapse_count: row.collapse_count,
    collapse_actors: row.collapse_actors,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

type Builder = ExpressionBuilder<Database, 'notifications'>;

/** Not expired at `now`: an expired notification is never listed, counted, changed or delivered. */
export function unexpired(eb: Builder, now: Date): Expression<SqlBool> {
  return eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]);
}

/** Neither archived nor snoozed at `now`: what the inbox shows. */
function inInbox(eb: Builder, now: Date): Expression<SqlBool> {
  return eb.and([
    eb('archived_at', 'is', null),
    eb.or([eb('snoozed_until', 'is', null), eb('snoozed_until', '<=', now)]),
  ]);
}

/** The unexpired rows a tab holds at `now`. */
export function inTab(eb: Builder, tab: InboxTab, now: Date): Expression<SqlBool> {
  switch (tab) {
    case 'inbox':
      return eb.and([unexpired(eb, now), inInbox(eb, now)]);
    case 'unread':
      return eb.and([unexpired(eb, now), inInbox(eb, now), eb('read_at', 'is', null)]);
    case 'archived':
      return eb.and([unexpired(eb, now), eb('archived_at', 'is not', null)]);
    case 'snoozed':
      return eb.and([unexpired(eb, now), eb('archived_at', 'is', null), eb('snoozed_until', '>', now)]);
  }
}
