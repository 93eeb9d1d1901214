import type { Delivery } from './channel.js';
import { NotificationError } from './errors.js';
import { type NotificationData, parseNotificationData } from './notification-data.js';

/** One notification as a message channel (email, Web Push) renders it. */
export interface DeliveryItem {
  readonly id: string;
  /** The notification type (`CommentReplied`). */
  readonly type: string;
  readonly title: string;
  readonly message: string;
  readonly actionUrl: string | undefined;
  readonly createdAt: Date;
  /** Everything the notification carries, extra keys included. */
  readonly data: NotificationData;
  /** How many notifications it stands for: 1, or more when a collapse key folded earlier ones into it. */
  readonly count: number;
  /** The folded notifications' actors (`data.actor`), newest first; empty when none named one. */
  readonly actors: readonly string[];
}

/**
 * What a collapsed item says besides its own text: "Ada and 9 others" (the newest actor and how many more),
 * "10 notifications" when no actor was named; `undefined` for an item that stands for itself alone.
 *
 * @example
 * collapseSummaryOf(item); // 'Ada and 9 others'
 */
export function collapseSummaryOf(item: Pick<DeliveryItem, 'count' | 'actors'>): string | undefined {
  if (item.count <= 1) return undefined;
  const [actor] = item.actors;
  if (actor === undefined) return `${item.count} notifications`;
  const others = item.count - 1;
  return `${actor} and ${others} ${others === 1 ? 'other' : 'others'}`;
}

/**
 * The item a channel renders for one delivery, from the notification's own builder for that channel (`toMail`,
 * `toWebPush`…) when it has one, else from `toDatabase()`.
 *
 * @throws {NotificationError} `missing_builder` when it has neither, `invalid_data` when the data lacks a title
 * or message.
 * @example
 * const item = deliveryItemOf(delivery, { channel: 'email', builder: 'toMail' });
 */
export function deliveryItemOf(delivery: Delivery, via: { channel: string; builder: string }): DeliveryItem {
  const notification = delivery.notification as Delivery['notification'] &
    Record<string, ((notifiable: Delivery['notifiable']) => unknown) | undefined>;
  const build = notification[via.builder] ?? notification.toDatabase;
  if (!build) {
    throw new NotificationError(
      'missing_builder',
      `${delivery.type} has no ${via.builder}() or toDatabase() for ${via.channel}`,
      { channel: via.channel },
    );
  }
  const parsed = parseNotificationData(build.call(notification, delivery.notifiable));
  if (!parsed.ok) {
    throw new NotificationError('invalid_data', `${delivery.type}: ${parsed.error.message}`, {
      channel: via.channel,
    });
  }
  const data = parsed.value;
  return {
    id: delivery.id,
    type: delivery.type,
    title: data.title,
    message: data.message,
    actionUrl: data.action_url,
    createdAt: delivery.createdAt,
    data,
    count: delivery.collapse?.count ?? 1,
    actors: delivery.collapse?.actors ?? [],
  };
}
