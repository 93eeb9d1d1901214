import { describe, expect, it } from 'vitest';
import { retryDelay } from './backoff.js';

describe('retryDelay', () => {
  it('draws from zero up to base × 2^attempts', () => {
    expect(retryDelay(0, { baseMs: 100 }, () => 0)).toBe(0);
    expect(retryDelay(0, { baseMs: 100 }, () => 0.999)).toBe(99);
    expect(retryDelay(3, { baseMs: 100 }, () => 0.5)).toBe(400);
  });

  it('never waits longer than maxMs, however many attempts', () => {
    expect(retryDelay(40, { baseMs: 1000, maxMs: 5000 }, () => 0.999)).toBe(4995);
  });

  it('spreads waits out (full jitter) rather than all at the ceiling', () => {
    const draws = Array.from({ length: 200 }, () => retryDelay(4, { baseMs: 100 }));
    expect(Math.min(...draws)).toBeLessThan(400);
    expect(Math.max(...draws)).toBeGreaterThan(1200);
    expect(draws.every((draw) => draw >= 0 && draw < 1600)).toBe(true);
  });
});
