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
}
