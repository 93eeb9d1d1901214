import type { NewAwayDelivery } from './away-queries.js';
import type { Notifiable, Notification } from './notification.js';

/** Where away deliveries are kept until their time (an away delivery made by `createAwayDelivery` is one). */
export interface AwayQueue {
  /** The away channels by name: email, team chat, … */
  readonly channelNames: readonly string[];
  /** Keeps deliveries until their delay ends. @throws {NotificationError} `store_failed` when they cannot be kept. */
  schedule(deliveries: readonly NewAwayDelivery[]): Promise<void>;
}

/** What one send hands to away delivery: who, with which ids, what, and when it was sent. */
export interface AwaySend {
  readonly notifiables: readonly Notifiable[];
  readonly ids: readonly string[];
  readonly notification: Notification;
  readonly type: string;
  readonly createdAt: Date;
}

/**
 * The away deliveries a send asks for: one per notifiable that has away channels, due `awayAfterSeconds` after
 * the send, with the address each channel routes to (`routeNotificationFor('email')`…). None when the
 * notification has no `awayAfterSeconds`.
 */
export function planAwayDeliveries(send: AwaySend, awayChannels: readonly string[]): NewAwayDelivery[] {
  const { notification } = send;
  const after = notification.awayAfterSeconds;
  if (after === undefined) return [];
  const known = new Set(awayChannels);
  const dueAt = new Date(send.createdAt.getTime() + after * 1000);
  return send.notifiables.flatMap((notifiable, index) => {
    const channels = (notification.awayVia?.(notifiable) ?? awayChannels).filter((name) => known.has(name));
    if (channels.length === 0) return [];
    const routes: Record<string, string> = {};
    for (const name of channels) {
      const route = notifiable.routeNotificationFor?.(name, notification);
      if (typeof route === 'string') routes[name] = route;
    }
    return [
      {
        id: send.ids[index] as string,
        type: send.type,
        owner: { type: notifiable.type, id: String(notifiable.id) },
        data: notification.toDatabase?.(notifiable),
        channels,
        routes,
        dueAt,
        digestWindowSeconds: notification.digestWindowSeconds ?? 0,
      },
    ];
  });
}
