/** Where a topic stands when its linger is looked at. */
export type TopicNeed = 'needed' | 'in-flight' | 'unneeded';

/** Topics no local socket needs, kept a while before they are dropped: a subscriber coming back costs no command. */
export interface TopicLinger {
  /** Drops the topic once the linger is over, unless it is needed again by then. */
  schedule(topic: string): void;
  /** Forgets the topic's drop. */
  cancel(topic: string): void;
  /** Forgets the timer (the connection is closing). */
  close(): void;
}

export function createTopicLinger(options: {
  readonly delayMs: number;
  readonly need: (topic: string) => TopicNeed;
  /** Drops the topics whose linger is over, together. */
  readonly drop: (topics: string[]) => void;
}): TopicLinger {
  const { delayMs, need, drop } = options;
  // Unneeded topics, with the time they may be dropped; one timer for all of them.
  const dropping = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;

  function arm(waitMs: number): void {
    timer = setTimeout(flush, Math.max(0, waitMs));
    timer.unref();
  }

  function flush(): void {
    timer = undefined;
    const now = Date.now();
    const due: string[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const [topic, at] of dropping) {
      const state = need(topic);
      if (state === 'needed') {
        dropping.delete(topic);
      } else if (state === 'in-flight') {
        // A subscription in flight is scheduled again once it settles: nothing to poll for.
      } else if (at > now) {
        next = Math.min(next, at);
      } else {
        dropping.delete(topic);
        due.push(topic);
      }
    }
    if (due.length) drop(due);
    if (next !== Number.POSITIVE_INFINITY && !timer) arm(next - now);
  }

  return {
    schedule(topic) {
      dropping.set(topic, Date.now() + delayMs);
      if (!timer) arm(delayMs);
    },
    cancel(topic) {
      dropping.delete(topic);
    },
    close() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
