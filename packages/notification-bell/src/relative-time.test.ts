import { describe, expect, it } from 'vitest';
import { formatRelativeTime } from './relative-time.js';

const now = new Date('2025-03-01T12:00:00Z');
const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);

describe('formatRelativeTime', () => {
  it('says how long ago in English', () => {
    expect(formatRelativeTime(ago(10), now, 'en')).toBe('now');
    expect(formatRelativeTime(ago(60), now, 'en')).toBe('1 minute ago');
    expect(formatRelativeTime(ago(5 * 60), now, 'en')).toBe('5 minutes ago');
    expect(formatRelativeTime(ago(3 * 3600), now, 'en')).toBe('3 hours ago');
    expect(formatRelativeTime(ago(26 * 3600), now, 'en')).toBe('yesterday');
    expect(formatRelativeTime(ago(15 * 86400), now, 'en')).toBe('2 weeks ago');
  });

  it('speaks the page’s language', () => {
    expect(formatRelativeTime(ago(5 * 60), now, 'de')).toBe('vor 5 Minuten');
    expect(formatRelativeTime(ago(26 * 3600), now, 'fr')).toBe('hier');
  });

  it('gives nothing for a time it cannot read', () => {
    expect(formatRelativeTime('not a date', now, 'en')).toBe('');
  });

  it('rounds a half away from zero, in the past as in the future', () => {
    expect(formatRelativeTime(ago(90 * 60), now, 'en')).toBe('2 hours ago');
    expect(formatRelativeTime(ago(-90 * 60), now, 'en')).toBe('in 2 hours');
  });
});
