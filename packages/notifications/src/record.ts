import type { NotificationData } from './notification-data.js';

/** Whose notifications: the notifiable's type (e.g. `User`) and id, as stored. */
export interface NotifiableKey {
  readonly type: string;
  readonly id: string;
}

/** A stored notification in Laravel's shape, with times as ISO-8601 strings, ready to serve as JSON. */
export interface NotificationRecord {
  readonly id: string;
  /** The notification's type, by default its class name. */
  readonly type: string;
  readonly notifiable_type: string;
  readonly notifiable_id: string;
  readonly data: NotificationData;
  /** When it was read; `null` while unread. */
  readonly read_at: string | null;
  /** When the bell first showed it for a second; `null` while unseen. Seeing is not reading. */
  readonly seen_at: string | null;
  /** When it was archived; `null` while in the inbox. */
  readonly archived_at: string | null;
  /** Hidden from the inbox until then, and back as unread after; `null` when not snoozed. */
  readonly snoozed_until: string | null;
  /** After this time it is never listed, counted or delivered; `null` when it does not expire. */
  readonly expires_at: string | null;
  /** Notifications with the same key to the same recipient fold into one while unread; `null` when none. */
  readonly collapse_key: string | null;
  /** How many notifications this one stands for (1 when nothing was folded into it). */
  readonly collapse_count: number;
  /** The distinct `data.actor` names of the notifications it stands for, newest first (at most 10). */
  readonly collapse_actors: readonly string[];
  readonly created_at: string;
  readonly updated_at: string;
}

/** A notification to insert: the store fills the times it is not given. */
export interface NewNotificationRecord {
  readonly id: string;
  readonly type: string;
  readonly notifiable_type: string;
  readonly notifiable_id: string;
  readonly data: NotificationData;
  readonly read_at?: Date | null;
  readonly created_at?: Date;
  /** Replaces the recipient's unread notification with the same key, counting it (see `collapse_count`). */
  readonly collapse_key?: string | null | undefined;
  /** Never listed, counted or delivered after this time. */
  readonly expires_at?: Date | null | undefined;
}

/** The inbox tabs: the inbox itself, its unread part, the archived and the snoozed notifications. */
export const INBOX_TABS = ['inbox', 'unread', 'archived', 'snoozed'] as const;

/** One inbox tab. */
export type InboxTab = (typeof INBOX_TABS)[number];

/** How many of a notifiable's live (unexpired) notifications each tab holds, and how many are unseen. */
export interface InboxCounts {
  readonly inbox: number;
  readonly unread: number;
  readonly archived: number;
  readonly snoozed: number;
  /** In the inbox and never shown for a second. */
  readonly unseen: number;
}
