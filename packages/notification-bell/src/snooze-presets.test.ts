import { describe, expect, it } from 'vitest';
import { snoozeUntil } from './snooze-presets.js';

describe('snoozeUntil', () => {
  // A Wednesday afternoon, local time.
  const wednesday = new Date(2026, 10, 25, 15, 30);

  it('ends an hour snooze an hour from now', () => {
    expect(snoozeUntil('hour', wednesday).getTime() - wednesday.getTime()).toBe(3_600_000);
  });

  it('ends a "tomorrow" snooze at nine the next morning', () => {
    expect(snoozeUntil('tomorrow', wednesday)).toEqual(new Date(2026, 10, 26, 9, 0));
  });

  it('ends a "next week" snooze on the coming Monday at nine, a full week ahead on a Monday', () => {
    expect(snoozeUntil('nextWeek', wednesday)).toEqual(new Date(2026, 10, 30, 9, 0));
    expect(snoozeUntil('nextWeek', new Date(2026, 10, 30, 8, 0))).toEqual(new Date(2026, 11, 7, 9, 0));
  });
});
