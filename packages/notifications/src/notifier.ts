import { randomUUID } from 'node:crypto';
import { type AwayQueue, planAwayDeliveries } from './away-plan.js';
import type { Delivery, DeliveryOutcome, NotificationChannel } from './channel.js';
import { NotificationError } from './errors.js';
import { runLimited } from './internal/limit.js';
import type { NotificationLogger } from './logger.js';
import { silentNotificationLogger } from './logger.js';
import { type Notifiable, type Notification, notificationType } from './notification.js';
import { type ChannelPreferences, preferenceOwnerKey } from './preferences.js';

/** Options of {@link createNotifier}. */
export interface NotifierOptions {
  /** The channels by name, as `via()` names them. */
  readonly channels: Readonly<Record<string, NotificationChannel>>;
  /**
   * The notifiables' channel preferences (the store is one): refused channels are left out before any
   * channel runs, and counted in the report's `skipped`.
   */
  readonly preferences?: ChannelPreferences | undefined;
  /** How many single deliveries one channel runs at once (default 16). */
  readonly concurrency?: number | undefined;
  /**
   * Where notifications with `awayAfterSeconds` are kept for their away channels (`createAwayDelivery`); the
   * report counts them under `delivered.away`.
   */
  readonly away?: AwayQueue | undefined;
  readonly logger?: NotificationLogger | undefined;
}

/** One delivery a channel could not make. */
export interface SendFailure {
  readonly channel: string;
  /** The notification id the delivery carried. */
  readonly id: string;
  readonly notifiable: Notifiable;
  readonly error: NotificationError;
}

/** What a send did: the ids given to each notifiable, the deliveries made, and every failure together. */
export interface SendReport {
  /** True when every delivery went through. */
  readonly ok: boolean;
  /** One notification id per notifiable, in the order given. */
  readonly ids: readonly string[];
  /** How many deliveries succeeded, per channel. */
  readonly delivered: Readonly<Record<string, number>>;
  /** How many deliveries were left out because the notifiable's preferences refuse the channel, per channel. */
  readonly skipped: Readonly<Record<string, number>>;
  readonly failures: readonly SendFailure[];
}

/** A notifiable that can be sent to directly. */
export type NotifyingNotifiable<N extends Notifiable = Notifiable> = N & {
  notify(notification: Notification): Promise<SendReport>;
};

/** An on-demand notifiable made by `route()`: add more routes, then `notify()`. */
export interface PendingRoute {
  route(channel: string, destination: unknown): PendingRoute;
  notify(notification: Notification): Promise<SendReport>;
}

/** Sends notifications through registered channels. */
export interface Notifier {
  /**
   * Sends a notification to one or many notifiables through the channels each one's `via()` names.
   * A failing channel does not stop the others; failures come back together in the report.
   *
   * @throws {NotificationError} `unknown_channel` before anything is sent, when `via()` names a channel not registered;
   *   `store_failed` before anything is sent, when the preferences cannot be read.
   */
  send(notifiables: Notifiable | readonly Notifiable[], notification: Notification): Promise<SendReport>;
  /** Gives a notifiable a `notify(notification)` method bound to this sender. */
  notifiable<N extends Notifiable>(notifiable: N): NotifyingNotifiable<N>;
  /** Starts an on-demand notification to a destination that is not a stored notifiable. */
  route(channel: string, destination: unknown): PendingRoute;
  /** The registered channel names. */
  readonly channelNames: readonly string[];
  /** The away channels' names (none without away delivery). */
  readonly awayChannelNames: readonly string[];
}

/** The `type` of on-demand notifiables made by `route()`. */
export const ANONYMOUS_NOTIFIABLE_TYPE = 'AnonymousNotifiable';

function asNotificationError(error: unknown, channel: string): NotificationError {
  if (error instanceof NotificationError) {
    return error.channel === undefined
      ? new NotificationError(error.code, error.message, { cause: error.cause, channel })
      : error;
  }
  const message = error instanceof Error ? error.message : String(error);
  return new NotificationError('send_failed', `channel "${channel}" failed: ${message}`, {
    cause: error,
    channel,
  });
}

/** Keeps a send's away deliveries, and records each as done or failed. */
async function scheduleAway(
  away: AwayQueue,
  send: Parameters<typeof planAwayDeliveries>[0],
  record: (outcome: DeliveryOutcome, id: string, notifiable: Notifiable) => void,
): Promise<void> {
  const planned = planAwayDeliveries(send, away.channelNames);
  if (planned.length === 0) return;
  let outcome: DeliveryOutcome;
  try {
    await away.schedule(planned);
  } catch (error) {
    outcome = error instanceof Error ? error : new Error(String(error));
  }
  for (const delivery of planned) {
    const index = send.ids.indexOf(delivery.id);
    record(outcome, delivery.id, send.notifiables[index] as Notifiable);
  }
}

/**
 * Creates a notification sender over named channels.
 *
 * @example
 * const notifier = createNotifier({ channels: { database: createDatabaseChannel({ store }) } });
 * await notifier.notifiable({ type: 'User', id: 42 }).notify(new InvoicePaid());
 */
export function createNotifier(options: NotifierOptions): Notifier {
  const channels = new Map(Object.entries(options.channels));
  const concurrency = options.concurrency ?? 16;
  const logger = options.logger ?? silentNotificationLogger;

  const send = async (
    target: Notifiable | readonly Notifiable[],
    notification: Notification,
    anonymous = false,
  ): Promise<SendReport> => {
    const notifiables: readonly Notifiable[] = Array.isArray(target) ? target : [target as Notifiable];
    const type = notificationType(notification);
    const createdAt = new Date();
    const byChannel = new Map<string, Delivery[]>();
    const ids: string[] = [];
    const skipped: Record<string, number> = {};
    const wanted = notifiables.map((notifiable) => {
      const names = [...new Set(notification.via(notifiable))];
      for (const name of names) {
        if (!channels.has(name)) {
          throw new NotificationError(
            'unknown_channel',
            `no channel named "${name}" is registered (registered: ${[...channels.keys()].join(', ') || 'none'})`,
            { channel: name },
          );
        }
      }
      return names;
    });
    let refused: ReadonlyMap<string, ReadonlySet<string>> | undefined;
    if (options.preferences && !anonymous && notifiables.length > 0) {
      try {
        refused = await options.preferences.refusedChannels(
          notifiables.map((n) => ({ type: n.type, id: String(n.id) })),
          type,
        );
      } catch (cause) {
        throw new NotificationError('store_failed', 'reading channel preferences failed', { cause });
      }
    }
    for (const [index, notifiable] of notifiables.entries()) {
      const id = randomUUID();
      ids.push(id);
      const refusedHere = refused?.get(
        preferenceOwnerKey({ type: notifiable.type, id: String(notifiable.id) }),
      );
      for (const name of wanted[index] as string[]) {
        if (refusedHere?.has(name)) {
          skipped[name] = (skipped[name] ?? 0) + 1;
          continue;
        }
        const list = byChannel.get(name) ?? [];
        byChannel.set(name, list);
        list.push({ id, notifiable, notification, type, createdAt, anonymous });
      }
    }

    const failures: SendFailure[] = [];
    const delivered: Record<string, number> = {};
    const record = (name: string, delivery: Delivery, outcome: DeliveryOutcome) => {
      if (outcome === undefined) {
        delivered[name] = (delivered[name] ?? 0) + 1;
        return;
      }
      const error = asNotificationError(outcome, name);
      logger.warn('delivery failed', {
        channel: name,
        id: delivery.id,
        code: error.code,
        err: error.message,
      });
      failures.push({ channel: name, id: delivery.id, notifiable: delivery.notifiable, error });
    };

    // Channels run in the order `via()` first named them, so `broadcast` can follow `database`.
    for (const [name, deliveries] of byChannel) {
      const channel = channels.get(name) as NotificationChannel;
      if (channel.sendMany) {
        let outcomes: readonly DeliveryOutcome[];
        try {
          outcomes = await channel.sendMany(deliveries);
        } catch (error) {
          outcomes = deliveries.map(() => (error instanceof Error ? error : new Error(String(error))));
        }
        for (const [index, delivery] of deliveries.entries()) record(name, delivery, outcomes[index]);
        continue;
      }
      await runLimited(deliveries, concurrency, async (delivery) => {
        try {
          await channel.send(delivery);
          record(name, delivery, undefined);
        } catch (error) {
          record(name, delivery, error instanceof Error ? error : new Error(String(error)));
        }
      });
    }
    if (options.away && !anonymous) {
      await scheduleAway(
        options.away,
        { notifiables, ids, notification, type, createdAt },
        (outcome, id, n) =>
          record('away', { id, notifiable: n, notification, type, createdAt, anonymous }, outcome),
      );
    }
    return { ok: failures.length === 0, ids, delivered, skipped, failures };
  };

  const route = (routes: Map<string, unknown>): PendingRoute => ({
    route(channel, destination) {
      return route(new Map([...routes, [channel, destination]]));
    },
    notify(notification) {
      const notifiable: Notifiable = {
        id: '',
        type: ANONYMOUS_NOTIFIABLE_TYPE,
        routeNotificationFor: (channel) => routes.get(channel),
      };
      // On demand, the routes decide the channels; `via()` can still narrow them.
      const onDemand: Notification = Object.assign(Object.create(notification) as Notification, {
        via: (n: Notifiable) => notification.via(n).filter((name) => routes.has(name)),
      });
      return send(notifiable, routes.size > 0 ? onDemand : notification, true);
    },
  });

  return {
    send: (notifiables, notification) => send(notifiables, notification),
    notifiable(notifiable) {
      return Object.assign(notifiable, {
        notify: (notification: Notification) => send(notifiable, notification),
      }) as NotifyingNotifiable<typeof notifiable>;
    },
    route: (channel, destination) => route(new Map([[channel, destination]])),
    channelNames: [...channels.keys()],
    awayChannelNames: options.away?.channelNames ?? [],
  };
}
