import type { AwayQueue } from './away-plan.js';
import { createAwayQueries, type DueAwayDelivery } from './away-queries.js';
import type { Delivery, NotificationChannel } from './channel.js';
import { dataNotification } from './data-notification.js';
import { NotificationError } from './errors.js';
import { storeConnectionOf } from './internal/store-connection.js';
import type { NotificationLogger } from './logger.js';
import { silentNotificationLogger } from './logger.js';
import type { Notifiable } from './notification.js';
import { parseNotificationData } from './notification-data.js';
import { type ChannelPreferences, preferenceOwnerKey } from './preferences.js';
import type { RecipientPresence } from './presence.js';
import type { NotifiableKey } from './record.js';
import type { NotificationStore } from './store.js';

/** Options of {@link createAwayDelivery}. */
export interface AwayDeliveryOptions {
  /** A store made by `createNotificationStore`: due deliveries are kept in its database, so they outlive a restart. */
  readonly store: NotificationStore;
  /** The away channels by name (`email`, `teamchat`…), the same objects the sender may also use directly. */
  readonly channels: Readonly<Record<string, NotificationChannel>>;
  /** Tells who has a bell open; without it every recipient counts as away. */
  readonly presence?: RecipientPresence | undefined;
  /** The recipients' channel preferences (the store by default), read when a delivery goes out. */
  readonly preferences?: ChannelPreferences | undefined;
  /** The longest wait between two looks at the store (default 1000 ms); a new delivery wakes it sooner. */
  readonly pollIntervalMs?: number | undefined;
  /** What time it is when `runDue` looks at the store (the clock by default). */
  readonly now?: (() => Date) | undefined;
  readonly logger?: NotificationLogger | undefined;
}

/** Away delivery: keeps deliveries until their delay ends, then sends them to recipients who have no bell open. */
export interface AwayDelivery extends AwayQueue {
  /** Starts watching the store; deliveries that came due while stopped go out at once. */
  start(): void;
  /** Stops watching and waits for deliveries going out now. */
  stop(): Promise<void>;
  /** Sends what is due now (one look at the store) and answers how many messages went out or were cancelled. */
  runDue(): Promise<number>;
  /**
   * Keeps where a recipient is reached on a channel (the email address their user token carries), used when a
   * send names none. @throws {NotificationError} `store_failed` when it cannot be kept.
   */
  rememberAddress(owner: NotifiableKey, channel: string, address: string): Promise<void>;
}

/** Deliveries that go out together: one alone, or a digest window's deliveries to one recipient. */
function groupsOf(due: readonly DueAwayDelivery[]): DueAwayDelivery[][] {
  const groups = new Map<string, DueAwayDelivery[]>();
  for (const delivery of due) {
    const key = delivery.digest
      ? JSON.stringify([delivery.owner.type, delivery.owner.id, delivery.sendAt.getTime()])
      : delivery.id;
    const group = groups.get(key) ?? [];
    groups.set(key, group);
    group.push(delivery);
  }
  return [...groups.values()];
}

function notifiableOf(
  owner: NotifiableKey,
  group: readonly DueAwayDelivery[],
  known: Readonly<Record<string, string>>,
): Notifiable {
  // What the send said wins over what the recipient's token last said.
  const routes: Record<string, string> = { ...known };
  for (const delivery of group) Object.assign(routes, delivery.routes);
  return { type: owner.type, id: owner.id, routeNotificationFor: (channel) => routes[channel] };
}

/**
 * Creates away delivery over a store. The sender keeps each notification with `awayAfterSeconds` here; when its
 * delay ends (or, for a digest, the window counted from the first one due), it is dropped if the recipient read
 * it in the bell or has a bell open, else sent on each away channel their preferences accept. Deliveries in one
 * digest window go to a channel's `sendDigest` as one message.
 *
 * @throws {NotificationError} `invalid_options` when `store` was not made by `createNotificationStore`.
 * @example
 * const away = createAwayDelivery({ store, channels: { email }, presence: createRealtimePresence(realtime) });
 * const notifier = createNotifier({ channels: { database, broadcast, email }, away, preferences: store });
 * away.start();
 */
export function createAwayDelivery(options: AwayDeliveryOptions): AwayDelivery {
  const connection = storeConnectionOf(options.store);
  if (connection === undefined) {
    throw new NotificationError(
      'invalid_options',
      'away delivery keeps its deliveries in a store made by createNotificationStore',
    );
  }
  const queries = createAwayQueries(connection);
  const logger = options.logger ?? silentNotificationLogger;
  const preferences = options.preferences ?? options.store;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const now = options.now ?? (() => new Date());
  const channels = new Map(Object.entries(options.channels));
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let started = false;
  // The last address kept per recipient and channel, so a token seen on every request writes once.
  const remembered = new Map<string, string>();

  const isPresent = async (owner: NotifiableKey): Promise<boolean> => {
    if (!options.presence) return false;
    try {
      return await options.presence.isPresent(owner);
    } catch (error) {
      // Better a message too many than a notification lost: who cannot be seen counts as away.
      logger.warn('presence unknown; sending as away', { owner: owner.id, err: (error as Error).message });
      return false;
    }
  };

  const sendOn = async (name: string, deliveries: readonly Delivery[]): Promise<void> => {
    const channel = channels.get(name) as NotificationChannel;
    try {
      if (deliveries.length > 1 && channel.sendDigest) await channel.sendDigest(deliveries);
      else for (const delivery of deliveries) await channel.send(delivery);
    } catch (error) {
      logger.warn('away delivery failed', {
        channel: name,
        ids: deliveries.map((d) => d.id),
        err: error instanceof Error ? error.message : String(error),
      });
    }
  };

  const sendGroup = async (group: readonly DueAwayDelivery[]): Promise<void> => {
    const owner = (group[0] as DueAwayDelivery).owner;
    // Read in the bell, or expired (inbox states): never delivered. Collapsed: sent with its count.
    const states = await queries.inboxStates(
      group.map((delivery) => delivery.id),
      now(),
    );
    const unread = group.filter((delivery) => !states.cancelled.has(delivery.id));
    if (unread.length === 0 || (await isPresent(owner))) return;
    const notifiable = notifiableOf(owner, unread, await queries.addressesOf(owner));
    const refused = new Map<string, ReadonlySet<string>>();
    for (const type of new Set(unread.map((delivery) => delivery.type))) {
      const answer = await preferences.refusedChannels([owner], type);
      refused.set(type, answer.get(preferenceOwnerKey(owner)) ?? new Set());
    }
    const byChannel = new Map<string, Delivery[]>();
    for (const due of unread) {
      const data = parseNotificationData(due.data);
      if (!data.ok) {
        logger.warn('away delivery has unusable data', { id: due.id, err: data.error.message });
        continue;
      }
      for (const name of due.channels) {
        if (!channels.has(name) || refused.get(due.type)?.has(name)) continue;
        const list = byChannel.get(name) ?? [];
        byChannel.set(name, list);
        list.push({
          id: due.id,
          notifiable,
          notification: dataNotification(due.type, data.value),
          type: due.type,
          createdAt: due.createdAt,
          anonymous: false,
          collapse: states.collapsed.get(due.id),
        });
      }
    }
    for (const [name, deliveries] of byChannel) await sendOn(name, deliveries);
  };

  const runDue = async (): Promise<number> => {
    const due = await queries.takeDue(now(), 500);
    const groups = groupsOf(due);
    for (const group of groups) {
      try {
        await sendGroup(group);
      } catch (error) {
        logger.error('away delivery stopped for a recipient', {
          ids: group.map((d) => d.id),
          err: error instanceof Error ? error.message : String(error),
        });
      }
    }
    return groups.length;
  };

  const arm = (delayMs: number) => {
    if (!started) return;
    clearTimeout(timer);
    timer = setTimeout(tick, Math.max(0, Math.min(delayMs, pollIntervalMs)));
  };

  function tick(): void {
    running = running
      .then(async () => {
        while ((await runDue()) > 0 && started) {
          // More may be due than one look takes: go on until nothing is.
        }
        const next = await queries.nextDue();
        arm(next ? next.getTime() - Date.now() : pollIntervalMs);
      })
      .catch((error: unknown) => {
        logger.error('away delivery could not read the store', {
          err: error instanceof Error ? error.message : String(error),
        });
        arm(pollIntervalMs);
      });
  }

  return {
    channelNames: [...channels.keys()],
    async schedule(deliveries) {
      try {
        await queries.add(deliveries);
      } catch (cause) {
        throw new NotificationError('store_failed', 'keeping away deliveries failed', { cause });
      }
      const first = Math.min(...deliveries.map((d) => d.dueAt.getTime()));
      if (started && deliveries.length > 0) arm(first - Date.now());
    },
    start() {
      if (started) return;
      started = true;
      arm(0);
    },
    async stop() {
      started = false;
      clearTimeout(timer);
      await running;
    },
    runDue,
    async rememberAddress(owner, channel, address) {
      const key = JSON.stringify([owner.type, owner.id, channel]);
      if (remembered.get(key) === address) return;
      try {
        await queries.rememberAddress(owner, channel, address);
      } catch (cause) {
        throw new NotificationError('store_failed', 'keeping an address failed', { cause });
      }
      if (remembered.size >= 10_000) remembered.clear();
      remembered.set(key, address);
    },
  };
}
