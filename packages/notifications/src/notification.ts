/** Someone (or something) that receives notifications: a type such as `User`, and an id. */
export interface Notifiable {
  readonly id: string | number;
  /** The notifiable's type, stored as `notifiable_type` (e.g. `User`). */
  readonly type: string;
  /** Where a channel should deliver for this notifiable (a channel name, a webhook room…); optional. */
  routeNotificationFor?(channel: string, notification: Notification): unknown;
}

/**
 * A notification: the channels it goes through for a notifiable, and one builder per channel
 * (`toDatabase`, `toBroadcast`, or a plugin's own such as `toTeamChat`).
 *
 * @example
 * class InvoicePaid implements Notification {
 *   via() { return ['database', 'broadcast']; }
 *   toDatabase() { return { title: 'Invoice paid', message: 'Invoice #12 was paid', icon: 'check' }; }
 * }
 */
export interface Notification {
  /** The names of the channels to send through, for this notifiable. */
  via(notifiable: Notifiable): readonly string[];
  /** The stored type; the class name when not given. */
  readonly type?: string;
  /** The data the `database` channel stores. */
  toDatabase?(notifiable: Notifiable): unknown;
  /** The data the `broadcast` channel publishes; `toDatabase()` when not given. */
  toBroadcast?(notifiable: Notifiable): unknown;
  /** The event name the `broadcast` channel publishes under (`notification.created` when not given). */
  broadcastAs?(): string;
  /**
   * Seconds after sending at which a recipient who has no bell open gets it on their away channels (email, team
   * chat…); a recipient with a bell open then gets nothing more. Not set: no away delivery.
   */
  readonly awayAfterSeconds?: number | undefined;
  /** Away deliveries to one recipient within this many seconds of the first one due go out as one digest (0: none). */
  readonly digestWindowSeconds?: number | undefined;
  /** The away channels for this notifiable; every away channel the sender has when not given. */
  awayVia?(notifiable: Notifiable): readonly string[];
  /**
   * Folds notifications with the same key to the same recipient: a new one replaces the recipient's unread one
   * and counts it (`collapse_count`, and `collapse_actors` from `data.actor`).
   */
  readonly collapseKey?: string | undefined;
  /** After this time the notification is never listed, counted or delivered (away delivery included). */
  readonly expiresAt?: Date | undefined;
}

/** The type a notification is stored under: its `type`, else its class name. */
export function notificationType(notification: Notification): string {
  if (notification.type) return notification.type;
  const name = (notification as object).constructor?.name;
  return name && name !== 'Object' ? name : 'Notification';
}
