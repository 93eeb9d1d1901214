import type { NodeContext } from './context.js';
import { type ClusterRouting, topicNames } from './message-route.js';
import { createTopicSubscriptions } from './topic-subscriptions.js';
import { type ClusterStats, countingListener, type Traffic } from './traffic.js';
import { createUserInterest } from './user-interest.js';

export type { ClusterRouting } from './message-route.js';
export { topicNames } from './message-route.js';
export type { ClusterStats } from './traffic.js';

/** The topics of one node: which it needs, subscribing them, dropping them after a linger. */
export interface Routing {
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

/** Interest routing subscribes and drops topics (see `topic-subscriptions.ts`); broadcast routing needs none. */
export function createRouting(
  context: NodeContext,
  options: {
    readonly routing: ClusterRouting;
    readonly traffic: Traffic;
    readonly unsubscribeDelayMs: number;
    readonly subscribeTimeoutMs: number;
    readonly receive: (raw: string) => void;
  },
): Routing {
  const { routing, traffic } = options;
  const listener = countingListener(traffic, options.receive);
  if (routing === 'broadcast') {
    return {
      listener,
      channel: () => undefined,
      user: () => undefined,
      present: () => undefined,
      restore: () => {},
      settled: async () => {},
      stats: () => ({ routing, ...traffic, topics: 0 }),
      close: () => {},
    };
  }
  const names = topicNames(context.channelName);
  const topics = createTopicSubscriptions(context, { ...options, listener });
  const users = createUserInterest();
  const follow = (topic: string, needed: boolean) => {
    if (needed) return topics.want(topic);
    topics.release(topic);
    return undefined;
  };
  return {
    listener,
    channel: (appId, channel, holds) => follow(names.channel(appId, channel), holds),
    user(appId, userId, holds) {
      const topic = names.user(appId, userId);
      return follow(topic, users.signedIn(topic, holds));
    },
    present(appId, userId, delta) {
      const topic = names.user(appId, userId);
      return follow(topic, users.present(topic, delta));
    },
    restore: topics.restore,
    settled: topics.settled,
    stats: () => ({ routing, ...traffic, topics: topics.count() }),
    close: topics.close,
  };
}
