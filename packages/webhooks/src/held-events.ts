/**
 * Counts the events of each app held in this process (gathered in a batch or on their way into the queue), for
 * the per-app cap and the queue-depth metric.
 */
export interface HeldEvents {
  of(appId: string): number;
  total(): number;
  add(appId: string, events: number): void;
  release(appId: string, events: number): void;
}

/** Creates an empty {@link HeldEvents}. */
export function createHeldEvents(): HeldEvents {
  const byApp = new Map<string, number>();
  const change = (appId: string, delta: number) => {
    const next = (byApp.get(appId) ?? 0) + delta;
    // Forget apps at zero: app ids come and go with the config.
    if (next <= 0) byApp.delete(appId);
    else byApp.set(appId, next);
  };
  return {
    of: (appId) => byApp.get(appId) ?? 0,
    total() {
      let total = 0;
      for (const events of byApp.values()) total += events;
      return total;
    },
    add: (appId, events) => change(appId, events),
    release: (appId, events) => change(appId, -events),
  };
}
