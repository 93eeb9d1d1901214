import { describe, expect, it } from 'vitest';
import { createSignInLimit } from './sign-in-limit.js';

describe('createSignInLimit', () => {
  it('lets an address fail ten times a minute, then makes it wait for the next attempt', () => {
    const limit = createSignInLimit();
    for (let i = 0; i < 10; i++) {
      expect(limit.wait('203.0.113.7', 0)).toBe(0);
      limit.failed('203.0.113.7', 0);
    }
    // One attempt comes back every six seconds.
    expect(limit.wait('203.0.113.7', 0)).toBe(6);
    expect(limit.wait('203.0.113.7', 4_500)).toBe(2);
    expect(limit.wait('203.0.113.7', 6_000)).toBe(0);
  });

  it('counts each address on its own, and never counts an address that did not fail', () => {
    const limit = createSignInLimit(2);
    limit.failed('203.0.113.7', 0);
    limit.failed('203.0.113.7', 0);
    expect(limit.wait('203.0.113.7', 0)).toBeGreaterThan(0);
    expect(limit.wait('203.0.113.8', 0)).toBe(0);
    expect(limit.size).toBe(1);
  });

  it('forgets addresses whose attempts came back when it must make room', () => {
    const limit = createSignInLimit(1);
    for (let i = 0; i < 10_000; i++) limit.failed(`10.0.${i >> 8}.${i & 255}`, 0);
    expect(limit.size).toBe(10_000);
    // A minute later every bucket is full again: the next new address finds them all forgotten.
    limit.failed('203.0.113.7', 60_000);
    expect(limit.size).toBe(1);
    expect(limit.wait('203.0.113.7', 60_000)).toBeGreaterThan(0);
  });
});
