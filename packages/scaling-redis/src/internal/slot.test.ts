import { describe, expect, it } from 'vitest';
import { hashSlot } from './slot.js';

describe('hashSlot', () => {
  it('matches the slots Redis gives in its cluster specification', () => {
    expect(hashSlot('123456789')).toBe(12739);
    expect(hashSlot('foo')).toBe(12182);
    expect(hashSlot('bar')).toBe(5061);
  });

  it('hashes only the hash tag when there is one', () => {
    expect(hashSlot('user:{1000}:following')).toBe(hashSlot('1000'));
    expect(hashSlot('a{b}c{d}')).toBe(hashSlot('b'));
  });
});
