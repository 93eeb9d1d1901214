import type { ClusterMessage } from '@herald/protocol-core';
import { hashSlot } from '../internal/slot.js';
import type { NodeContext } from './context.js';

/**
 * How cluster messages reach nodes. `interest`: a channel's traffic (`deliver`, `count`) goes to a topic per
 * channel and `terminate` to a topic per user, each subscribed only by the nodes holding its sockets; `broadcast`:
 * everything goes to every node over the control channel (the behaviour before interest routing).
 */
export type ClusterRouting = 'interest' | 'broadcast';

/** What a node received from Redis and how much subscribing it did; counters since the adapter was made. */
export interface ClusterStats {
  readonly routing: ClusterRouting;
  /** Messages that arrived on any channel this node listens on (its own echoes on topics included). */
  readonly messagesReceived: number;
  /** Their size in bytes (UTF-8). */
  readonly bytesReceived: number;
  /** Topics (channels and users) subscribed right now, lingering ones included. */
  readonly topics: number;
  /** Topics subscribed, and dropped, so far. */
  readonly subscribes: number;
  readonly unsubscribes: number;
  /** SUBSCRIBE/SUNSUBSCRIBE commands sent for them (a drop sends one command for many topics where it can). */
  readonly subscribeCommands: number;
  readonly unsubscribeCommands: number;
}

/** The topics of one node: which it needs, subscribing them, dropping them after a linger. */
export interface Routing {
  /** The channel a message is published on. */
  route(message: ClusterMessage): string;
  /** Handed to Redis as the listener of every channel: counts what arrives, then hands it on. */
  readonly listener: (raw: string) => void;
  /**
   * A channel got its first local subscriber (`holds`) or lost its last one. While the node starts receiving the
   * channel, answers a promise that settles (never rejects) once Redis acknowledged the subscription.
   */
  channel(appId: string, channel: string, holds: boolean): Promise<void> | undefined;
  /**
   * This node holds signed-in sockets of a user, or no longer does. Like {@link channel}, a promise while the node
   * starts receiving the user's traffic.
   */
  user(appId: string, userId: string, holds: boolean): Promise<void> | undefined;
  /**
   * One more (+1) or one fewer (-1) socket of this node is present as the user in a presence channel: terminating
   * a user closes those too, so the user's topic is needed while any is, signed in or not. A promise like
   * {@link user}'s.
   */
  present(appId: string, userId: string, delta: 1 | -1): Promise<void> | undefined;
  /** Subscribes again every needed topic Redis has not acknowledged (after a failure or an outage). */
  restore(): void;
  /** Resolves when no subscription is in flight. */
  settled(): Promise<void>;
  stats(): ClusterStats;
  /** Forgets every timer (the connection is closing). */
  close(): void;
}

/** The two topic names; the `{…}` hash tag spreads them over the masters of a Redis Cluster. */
export function topicNames(channelName: string) {
  return {
    channel: (appId: string, channel: string) => `${channelName}#ch{${appId}:${channel}}`,
    user: (appId: string, userId: string) => `${channelName}#user{${appId}:${userId}}`,
  };
}

export function createRouting(
  context: NodeContext,
  options: {
    readonly routing: ClusterRouting;
    /** How long a topic nobody needs is kept before it is dropped (a subscriber coming back cancels the drop). */
    readonly unsubscribeDelayMs: number;
    /** Longest wait for a subscription's acknowledgement before a subscriber is confirmed anyway. */
    readonly subscribeTimeoutMs: number;
    readonly receive: (raw: string) => void;
  },
): Routing {
  const { link, logger, nodeId, channelName } = context;
  const { routing, unsubscribeDelayMs, subscribeTimeoutMs, receive } = options;
  const names = topicNames(channelName);
  const counters = {
    messagesReceived: 0,
    bytesReceived: 0,
    subscribes: 0,
    unsubscribes: 0,
    subscribeCommands: 0,
    unsubscribeCommands: 0,
  };
  // Needed now / acknowledged by Redis / SUBSCRIBE in flight / unneeded, with the time they may be dropped.
  const wanted = new Set<string>();
  const subscribed = new Set<string>();
  const pending = new Map<string, Promise<void>>();
  const dropping = new Map<string, number>();
  let dropTimer: NodeJS.Timeout | undefined;

  const listener = (raw: string) => {
    counters.messagesReceived += 1;
    counters.bytesReceived += Buffer.byteLength(raw);
    receive(raw);
  };

  function route(message: ClusterMessage): string {
    if (routing === 'broadcast') return channelName;
    if (message.type === 'deliver') return names.channel(message.delivery.appId, message.delivery.channel);
    if (message.type === 'count') return names.channel(message.appId, message.channel);
    if (message.type === 'terminate') return names.user(message.appId, message.userId);
    return channelName;
  }

  /** Groups topics into commands a Redis Cluster accepts (one slot each); one command on a single Redis. */
  function batches(topics: readonly string[]): string[][] {
    if (!link.clusterMode) return topics.length ? [[...topics]] : [];
    const bySlot = new Map<number, string[]>();
    for (const topic of topics) {
      const slot = hashSlot(topic);
      const group = bySlot.get(slot);
      if (group) group.push(topic);
      else bySlot.set(slot, [topic]);
    }
    return [...bySlot.values()];
  }

  function subscribe(topics: readonly string[]): Promise<void> {
    counters.subscribeCommands += 1;
    const attempt = link.subscribe(topics, listener).then(
      () => {
        for (const topic of topics) {
          subscribed.add(topic);
          counters.subscribes += 1;
          // Unneeded while it was being subscribed: it lingers like any other.
          if (!wanted.has(topic)) scheduleDrop(topic);
        }
      },
      (error: unknown) => {
        context.fail('subscribe', error); // Retried by restore() once Redis is back.
        // Nothing to drop for a topic that never got subscribed and is no longer needed.
        for (const topic of topics) if (!wanted.has(topic) && !subscribed.has(topic)) dropping.delete(topic);
      },
    );
    const settled = attempt.finally(() => {
      for (const topic of topics) if (pending.get(topic) === settled) pending.delete(topic);
    });
    for (const topic of topics) pending.set(topic, settled);
    return settled;
  }

  /** The subscription's promise, bounded: a Redis that never answers must not hold a subscriber forever. */
  function bounded(subscription: Promise<void>, topic: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        logger.warn('confirming a subscription before Redis acknowledged its topic', { nodeId, topic });
        resolve();
      }, subscribeTimeoutMs);
      timer.unref();
    });
    return Promise.race([subscription, timeout]).finally(() => clearTimeout(timer));
  }

  function want(topic: string): Promise<void> | undefined {
    dropping.delete(topic);
    wanted.add(topic);
    if (subscribed.has(topic)) return undefined;
    return bounded(pending.get(topic) ?? subscribe([topic]), topic);
  }

  function scheduleDrop(topic: string): void {
    dropping.set(topic, Date.now() + unsubscribeDelayMs);
    if (!dropTimer) armDropTimer(unsubscribeDelayMs);
  }

  function armDropTimer(delayMs: number): void {
    dropTimer = setTimeout(flushDrops, Math.max(0, delayMs));
    dropTimer.unref();
  }

  function release(topic: string): void {
    wanted.delete(topic);
    if (subscribed.has(topic) || pending.has(topic)) scheduleDrop(topic);
  }

  /** Drops every topic whose linger is over, in as few commands as the slot rules allow. */
  function flushDrops(): void {
    dropTimer = undefined;
    const now = Date.now();
    const due: string[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const [topic, at] of dropping) {
      if (wanted.has(topic)) {
        dropping.delete(topic);
      } else if (pending.has(topic)) {
        // A subscription in flight lingers again once it settles (see subscribe): nothing to poll for.
      } else if (at > now) {
        next = Math.min(next, at);
      } else {
        dropping.delete(topic);
        if (subscribed.delete(topic)) due.push(topic);
      }
    }
    for (const batch of batches(due)) {
      counters.unsubscribeCommands += 1;
      link.unsubscribe(batch, listener).then(
        () => {
          counters.unsubscribes += batch.length;
        },
        (error: unknown) => {
          // Still subscribed as far as Redis and node-redis know: try again after another linger.
          context.fail('unsubscribe', error);
          for (const topic of batch) {
            if (wanted.has(topic) || pending.has(topic)) continue;
            subscribed.add(topic);
            scheduleDrop(topic);
          }
        },
      );
    }
    if (next !== Number.POSITIVE_INFINITY && !dropTimer) armDropTimer(next - now);
  }

  // Why a user's topic is needed here: the user has signed-in sockets on this node (the server reports the first
  // in and the last out), or sockets present as them in presence channels (counted one by one).
  const signedIn = new Set<string>();
  const present = new Map<string, number>();

  function userTopic(topic: string): Promise<void> | undefined {
    if (signedIn.has(topic) || present.has(topic)) return want(topic);
    release(topic);
    return undefined;
  }

  function restore(): void {
    const missing = [...wanted].filter((topic) => !subscribed.has(topic) && !pending.has(topic));
    if (!missing.length) return;
    logger.info('subscribing again the topics this node needs', { nodeId, topics: missing.length });
    for (const batch of batches(missing)) void subscribe(batch);
  }

  if (routing === 'broadcast') {
    return {
      route,
      listener,
      channel: () => undefined,
      user: () => undefined,
      present: () => undefined,
      restore: () => {},
      settled: async () => {},
      stats: () => ({ routing, ...counters, topics: 0 }),
      close: () => {},
    };
  }

  return {
    route,
    listener,
    channel(appId, channel, holds) {
      const topic = names.channel(appId, channel);
      if (holds) return want(topic);
      release(topic);
      return undefined;
    },
    user(appId, userId, holds) {
      const topic = names.user(appId, userId);
      if (holds) signedIn.add(topic);
      else signedIn.delete(topic);
      return userTopic(topic);
    },
    present(appId, userId, delta) {
      const topic = names.user(appId, userId);
      const count = (present.get(topic) ?? 0) + delta;
      if (count > 0) present.set(topic, count);
      else present.delete(topic);
      return userTopic(topic);
    },
    restore,
    async settled() {
      while (pending.size) await Promise.all(pending.values());
    },
    stats: () => ({ routing, ...counters, topics: subscribed.size }),
    close() {
      clearTimeout(dropTimer);
      dropTimer = undefined;
    },
  };
}
