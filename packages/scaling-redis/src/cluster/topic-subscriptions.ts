import type { NodeContext } from './context.js';
import { topicBatches } from './topic-batches.js';
import { createTopicLinger } from './topic-linger.js';
import type { Traffic } from './traffic.js';

/** The topics of one node: which it needs, subscribing them, and dropping them after a linger. */
export interface TopicSubscriptions {
  /**
   * The node needs the topic. While it is not subscribed yet, answers a promise that settles (never rejects) once
   * Redis acknowledged it, or after the subscribe timeout.
   */
  want(topic: string): Promise<void> | undefined;
  /** The node no longer needs the topic: it is dropped after the linger. */
  release(topic: string): void;
  /** Subscribes again every needed topic Redis has not acknowledged (after a failure or an outage). */
  restore(): void;
  /** Resolves when no subscription is in flight. */
  settled(): Promise<void>;
  /** Topics subscribed right now, lingering ones included. */
  count(): number;
  /** Forgets every timer (the connection is closing). */
  close(): void;
}

export function createTopicSubscriptions(
  context: NodeContext,
  options: {
    readonly traffic: Traffic;
    /** Handed to Redis as the listener of every topic. */
    readonly listener: (raw: string) => void;
    /** How long a topic nobody needs is kept before it is dropped (a subscriber coming back cancels the drop). */
    readonly unsubscribeDelayMs: number;
    /** Longest wait for a subscription's acknowledgement before a subscriber is confirmed anyway. */
    readonly subscribeTimeoutMs: number;
  },
): TopicSubscriptions {
  const { link, logger, nodeId } = context;
  const { traffic, listener, subscribeTimeoutMs } = options;
  // Needed now / acknowledged by Redis / SUBSCRIBE in flight.
  const wanted = new Set<string>();
  const subscribed = new Set<string>();
  const pending = new Map<string, Promise<void>>();
  const linger = createTopicLinger({
    delayMs: options.unsubscribeDelayMs,
    need: (topic) => (wanted.has(topic) ? 'needed' : pending.has(topic) ? 'in-flight' : 'unneeded'),
    drop: (topics) => unsubscribe(topics.filter((topic) => subscribed.delete(topic))),
  });

  function subscribe(topics: readonly string[]): Promise<void> {
    traffic.subscribeCommands += 1;
    const attempt = link.subscribe(topics, listener).then(
      () => {
        for (const topic of topics) {
          subscribed.add(topic);
          traffic.subscribes += 1;
          // Unneeded while it was being subscribed: it lingers like any other.
          if (!wanted.has(topic)) linger.schedule(topic);
        }
      },
      (error: unknown) => {
        context.fail('subscribe', error); // Retried by restore() once Redis is back.
        // Nothing to drop for a topic that never got subscribed and is no longer needed.
        for (const topic of topics) if (!wanted.has(topic) && !subscribed.has(topic)) linger.cancel(topic);
      },
    );
    const settled = attempt.finally(() => {
      for (const topic of topics) if (pending.get(topic) === settled) pending.delete(topic);
    });
    for (const topic of topics) pending.set(topic, settled);
    return settled;
  }

  /** Drops topics in as few commands as the slot rules allow. */
  function unsubscribe(topics: readonly string[]): void {
    for (const batch of topicBatches(link.clusterMode, topics)) {
      traffic.unsubscribeCommands += 1;
      link.unsubscribe(batch, listener).then(
        () => {
          traffic.unsubscribes += batch.length;
        },
        (error: unknown) => {
          // Still subscribed as far as Redis and node-redis know: try again after another linger.
          context.fail('unsubscribe', error);
          for (const topic of batch) {
            if (wanted.has(topic) || pending.has(topic)) continue;
            subscribed.add(topic);
            linger.schedule(topic);
          }
        },
      );
    }
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

  return {
    want(topic) {
      linger.cancel(topic);
      wanted.add(topic);
      if (subscribed.has(topic)) return undefined;
      return bounded(pending.get(topic) ?? subscribe([topic]), topic);
    },
    release(topic) {
      wanted.delete(topic);
      if (subscribed.has(topic) || pending.has(topic)) linger.schedule(topic);
    },
    restore() {
      const missing = [...wanted].filter((topic) => !subscribed.has(topic) && !pending.has(topic));
      if (!missing.length) return;
      logger.info('subscribing again the topics this node needs', { nodeId, topics: missing.length });
      for (const batch of topicBatches(link.clusterMode, missing)) void subscribe(batch);
    },
    async settled() {
      while (pending.size) await Promise.all(pending.values());
    },
    count: () => subscribed.size,
    close: linger.close,
  };
}
