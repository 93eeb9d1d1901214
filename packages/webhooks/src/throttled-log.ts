const EVERY_MS = 10_000;

/**
 * Writes at most one log line per key every 10 s, with the events counted since the last line: a flood of drops
 * must not become a flood of logs. `write` receives the events the line stands for.
 */
export type ThrottledLog = (key: string, events: number, write: (events: number) => void) => void;

/** Creates a {@link ThrottledLog} with its own memory of when each key was last written. */
export function createThrottledLog(now: () => number = Date.now): ThrottledLog {
  const seen = new Map<string, { count: number; loggedAt: number }>();
  return (key, events, write) => {
    const at = now();
    const last = seen.get(key);
    if (last && at - last.loggedAt < EVERY_MS) {
      last.count += events;
      return;
    }
    write(events + (last?.count ?? 0));
    seen.set(key, { count: 0, loggedAt: at });
  };
}
