/** The snooze choices the bell offers, each a time from now. */
export const SNOOZE_PRESETS = ['hour', 'tomorrow', 'nextWeek'] as const;

/** One snooze choice. */
export type SnoozePreset = (typeof SNOOZE_PRESETS)[number];

/** The hour of the day a "tomorrow" or "next week" snooze ends, in the reader's own time zone. */
const MORNING_HOUR = 9;

/**
 * When a snooze chosen at `now` ends: in an hour, tomorrow at 9:00, or next Monday at 9:00 (local time), each
 * well inside the server's 30-day bound.
 */
export function snoozeUntil(preset: SnoozePreset, now: Date = new Date()): Date {
  if (preset === 'hour') return new Date(now.getTime() + 60 * 60 * 1000);
  const at = new Date(now);
  at.setHours(MORNING_HOUR, 0, 0, 0);
  // Monday is 1: the days to the next Monday, a whole week when today is Monday.
  const days = preset === 'tomorrow' ? 1 : (8 - now.getDay()) % 7 || 7;
  at.setDate(at.getDate() + days);
  return at;
}
