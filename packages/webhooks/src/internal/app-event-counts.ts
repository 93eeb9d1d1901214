/** Events counted per app: held in the dispatcher (the per-app cap, the depth metric) or queued in memory. */
export interface AppEventCounts {
  of(appId: string): number;
  total(): number;
  /** Adds `delta` events (negative to take them away) to an app's count. */
  add(appId: string, delta: number): void;
}

/** Creates an empty {@link AppEventCounts}. */
export function createAppEventCounts(): AppEventCounts {
  const byApp = new Map<string, number>();
  return {
    of: (appId) => byApp.get(appId) ?? 0,
    total() {
      let total = 0;
      for (const events of byApp.values()) total += events;
      return total;
    },
    add(appId, delta) {
      const next = (byApp.get(appId) ?? 0) + delta;
      // Forget apps at zero: app ids come and go with the config.
      if (next <= 0) byApp.delete(appId);
      else byApp.set(appId, next);
    },
  };
}
