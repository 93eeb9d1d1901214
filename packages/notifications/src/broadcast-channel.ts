import type { NotificationBroadcaster } from './broadcaster.js';
import { notificationChannelName } from './broadcaster.js';
import type { NotificationChannel } from './channel.js';
import { NotificationError } from './errors.js';

/** The event a new notification is published under unless the notification's `broadcastAs()` says otherwise. */
export const NOTIFICATION_CREATED_EVENT = 'notification.created';

/** Options of {@link createBroadcastChannel}. */
export interface BroadcastChannelOptions {
  readonly broadcaster: NotificationBroadcaster;
}

/**
 * Creates the `broadcast` channel: it publishes the notification, shaped as the stored record, on the
 * notifiable's private channel (`private-{type}.{id}`, or what `routeNotificationFor('broadcast')` returns).
 *
 * @example
 * createNotifier({ channels: { database, broadcast: createBroadcastChannel({ broadcaster }) } });
 */
export function createBroadcastChannel(options: BroadcastChannelOptions): NotificationChannel {
  return {
    async send(delivery) {
      const { notifiable, notification } = delivery;
      const build = notification.toBroadcast ?? notification.toDatabase;
      if (!build) {
        throw new NotificationError(
          'missing_builder',
          `${delivery.type} has no toBroadcast() or toDatabase()`,
          {
            channel: 'broadcast',
          },
        );
      }
      const routed = notifiable.routeNotificationFor?.('broadcast', notification);
      const channels =
        typeof routed === 'string'
          ? [routed]
          : Array.isArray(routed)
            ? routed.map(String)
            : delivery.anonymous
              ? []
              : [notificationChannelName({ type: notifiable.type, id: String(notifiable.id) })];
      if (channels.length === 0) {
        throw new NotificationError(
          'invalid_data',
          'an on-demand broadcast needs a channel name as its route',
          {
            channel: 'broadcast',
          },
        );
      }
      const createdAt = delivery.createdAt.toISOString();
      const record = {
        id: delivery.id,
        type: delivery.type,
        notifiable_type: notifiable.type,
        notifiable_id: String(notifiable.id),
        data: build.call(notification, notifiable),
        read_at: null,
        created_at: createdAt,
        updated_at: createdAt,
      };
      await options.broadcaster.publish(
        channels,
        notification.broadcastAs?.() ?? NOTIFICATION_CREATED_EVENT,
        record,
      );
    },
  };
}
