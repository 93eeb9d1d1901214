import type { Delivery, DeliveryOutcome, NotificationChannel } from './channel.js';
import { NotificationError } from './errors.js';
import { parseNotificationData } from './notification-data.js';
import type { NewNotificationRecord } from './record.js';
import type { NotificationStore } from './store.js';

/** Options of {@link createDatabaseChannel}. */
export interface DatabaseChannelOptions {
  readonly store: NotificationStore;
}

function toRecord(delivery: Delivery): NewNotificationRecord {
  const { notification, notifiable } = delivery;
  if (delivery.anonymous) {
    throw new NotificationError('invalid_data', 'an on-demand notifiable has no identity to store under', {
      channel: 'database',
    });
  }
  if (!notification.toDatabase) {
    throw new NotificationError(
      'missing_builder',
      `${delivery.type} has no toDatabase() for the database channel`,
      {
        channel: 'database',
      },
    );
  }
  const parsed = parseNotificationData(notification.toDatabase(notifiable));
  if (!parsed.ok) {
    throw new NotificationError('invalid_data', `${delivery.type}: ${parsed.error.message}`, {
      channel: 'database',
    });
  }
  return {
    id: delivery.id,
    type: delivery.type,
    notifiable_type: notifiable.type,
    notifiable_id: String(notifiable.id),
    data: parsed.value,
    created_at: delivery.createdAt,
    collapse_key: notification.collapseKey ?? null,
    expires_at: notification.expiresAt ?? null,
  };
}

/**
 * Creates the `database` channel: it validates `toDatabase()` data and stores it, many rows per write.
 *
 * @example
 * createNotifier({ channels: { database: createDatabaseChannel({ store }) } });
 */
export function createDatabaseChannel(options: DatabaseChannelOptions): NotificationChannel {
  const { store } = options;
  return {
    async send(delivery) {
      await store.insertMany([toRecord(delivery)]);
    },
    async sendMany(deliveries) {
      const outcomes: DeliveryOutcome[] = [];
      const records: NewNotificationRecord[] = [];
      for (const delivery of deliveries) {
        try {
          records.push(toRecord(delivery));
          outcomes.push(undefined);
        } catch (error) {
          outcomes.push(error as NotificationError);
        }
      }
      try {
        await store.insertMany(records);
      } catch (cause) {
        const error = new NotificationError('store_failed', 'storing notifications failed', {
          cause,
          channel: 'database',
        });
        return outcomes.map((outcome) => outcome ?? error);
      }
      return outcomes;
    },
  };
}
