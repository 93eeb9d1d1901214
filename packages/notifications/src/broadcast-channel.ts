import type { BroadcastEvent, NotificationBroadcaster } from './broadcaster.js';
import { notificationChannelName } from './broadcaster.js';
import type { Delivery, DeliveryOutcome, NotificationChannel } from './channel.js';
import { NotificationError } from './errors.js';
import { runLimited } from './internal/limit.js';

/** The event a new notification is published under unless the notification's `broadcastAs()` says otherwise. */
export const NOTIFICATION_CREATED_EVENT = 'notification.created';

/** Options of {@link createBroadcastChannel}. */
export interface BroadcastChannelOptions {
  readonly broadcaster: NotificationBroadcaster;
  /**
   * Events per batch call when many notifications go out at once (default 10, the real-time server's default
   * `max_event_batch_size`; 1 turns batching off).
   */
  readonly batchSize?: number | undefined;
  /** Batch calls in flight at once (default 4). */
  readonly concurrency?: number | undefined;
}

/** What one delivery publishes: the event, its channels, and the record it carries. */
interface Prepared {
  readonly channels: readonly string[];
  readonly event: string;
  readonly record: unknown;
}

function prepare(delivery: Delivery): Prepared {
  const { notifiable, notification } = delivery;
  const build = notification.toBroadcast ?? notification.toDatabase;
  if (!build) {
    throw new NotificationError('missing_builder', `${delivery.type} has no toBroadcast() or toDatabase()`, {
      channel: 'broadcast',
    });
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
    throw new NotificationError('invalid_data', 'an on-demand broadcast needs a channel name as its route', {
      channel: 'broadcast',
    });
  }
  const createdAt = delivery.createdAt.toISOString();
  return {
    channels,
    event: notification.broadcastAs?.() ?? NOTIFICATION_CREATED_EVENT,
    record: {
      id: delivery.id,
      type: delivery.type,
      notifiable_type: notifiable.type,
      notifiable_id: String(notifiable.id),
      data: build.call(notification, notifiable),
      read_at: null,
      // Only when set: so a bell can fold it into the unread one with the same key it holds, and drop it once expired.
      ...(notification.collapseKey === undefined ? {} : { collapse_key: notification.collapseKey }),
      ...(notification.expiresAt === undefined ? {} : { expires_at: notification.expiresAt.toISOString() }),
      created_at: createdAt,
      updated_at: createdAt,
    },
  };
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * Creates the `broadcast` channel: it publishes the notification, shaped as the stored record, on the
 * notifiable's private channel (`private-{type}.{id}`, or what `routeNotificationFor('broadcast')` returns).
 * Many notifications at once go out in batch calls (`batch_events`), one event per notifiable.
 *
 * @example
 * createNotifier({ channels: { database, broadcast: createBroadcastChannel({ broadcaster }) } });
 */
export function createBroadcastChannel(options: BroadcastChannelOptions): NotificationChannel {
  const { broadcaster } = options;
  const batchSize = Math.max(1, options.batchSize ?? 10);
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const publishOne = async (prepared: Prepared) =>
    broadcaster.publish(prepared.channels, prepared.event, prepared.record);

  return {
    async send(delivery) {
      await publishOne(prepare(delivery));
    },
    async sendMany(deliveries) {
      const outcomes: DeliveryOutcome[] = deliveries.map(() => undefined);
      // Index and event of each delivery that goes to one channel, so it fits a batch entry.
      const batchable: Array<{ index: number; event: BroadcastEvent }> = [];
      const single: Array<{ index: number; prepared: Prepared }> = [];
      for (const [index, delivery] of deliveries.entries()) {
        try {
          const prepared = prepare(delivery);
          if (prepared.channels.length === 1 && batchSize > 1) {
            const channel = prepared.channels[0] as string;
            batchable.push({ index, event: { channel, event: prepared.event, data: prepared.record } });
          } else single.push({ index, prepared });
        } catch (error) {
          outcomes[index] = asError(error);
        }
      }
      const tasks: Array<() => Promise<void>> = [];
      for (let start = 0; start < batchable.length; start += batchSize) {
        const batch = batchable.slice(start, start + batchSize);
        tasks.push(async () => {
          try {
            await broadcaster.publishBatch(batch.map((entry) => entry.event));
          } catch (error) {
            for (const entry of batch) outcomes[entry.index] = asError(error);
          }
        });
      }
      for (const { index, prepared } of single) {
        tasks.push(async () => {
          try {
            await publishOne(prepared);
          } catch (error) {
            outcomes[index] = asError(error);
          }
        });
      }
      await runLimited(tasks, concurrency, (task) => task());
      return outcomes;
    },
  };
}
