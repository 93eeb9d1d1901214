import type { Notifiable, Notification } from './notification.js';

/** How many notifications a collapsed one stands for (collapse key), and the actors' names, newest first. */
export interface CollapseCount {
  readonly count: number;
  readonly actors: readonly string[];
}

/** One notification on its way to one notifiable; every channel it goes through sees the same id. */
export interface Delivery {
  /** The notification's id (a UUID), the stored record's id. */
  readonly id: string;
  readonly notifiable: Notifiable;
  readonly notification: Notification;
  /** The notification's type, as stored. */
  readonly type: string;
  /** When it was sent. */
  readonly createdAt: Date;
  /** True for an on-demand notifiable made by `route()`, which has no stored identity. */
  readonly anonymous: boolean;
  /**
   * Set when it stands for several notifications folded by a collapse key: away delivery reads the count from the
   * store when it goes out ("Ada and 9 others").
   */
  readonly collapse?: CollapseCount | undefined;
}

/** The outcome for one delivery when a channel sends many at once: `undefined` for success, else the error. */
export type DeliveryOutcome = Error | undefined;

/**
 * A channel the sender can deliver through, registered under a name. `send` handles one delivery; a channel
 * that can do better in bulk (one INSERT for many rows) also implements `sendMany`.
 */
export interface NotificationChannel {
  send(delivery: Delivery): Promise<void>;
  /** Sends many deliveries at once and returns one outcome per delivery, in order. */
  sendMany?(deliveries: readonly Delivery[]): Promise<readonly DeliveryOutcome[]>;
  /**
   * Sends several deliveries to one notifiable as one message (a digest: "3 new notifications"). Away delivery
   * calls it for a digest window's deliveries; a channel without it gets them one by one.
   */
  sendDigest?(deliveries: readonly Delivery[]): Promise<void>;
}
