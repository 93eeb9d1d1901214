import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { equalDigests } from './constant-time.js';

describe('equalDigests', () => {
  const digest = createHash('sha256').update('herald').digest('hex');

  it('accepts the same digest, also when it is a slice of a longer string', () => {
    expect(equalDigests(digest, digest)).toBe(true);
    expect(equalDigests(`auth_signature=${digest}`.slice(15), digest)).toBe(true);
  });

  it('refuses a digest that differs at any one position', () => {
    for (let i = 0; i < digest.length; i++) {
      const changed = `${digest.slice(0, i)}${digest[i] === '0' ? '1' : '0'}${digest.slice(i + 1)}`;
      expect(equalDigests(changed, digest), String(i)).toBe(false);
    }
  });

  it('refuses other lengths, other cases and characters beyond one byte', () => {
    expect(equalDigests(digest.slice(1), digest)).toBe(false);
    expect(equalDigests(`${digest}0`, digest)).toBe(false);
    expect(equalDigests('', digest)).toBe(false);
    expect(equalDigests(digest.toUpperCase(), digest)).toBe(false);
    // U+0130 has the low byte of '0': a byte-truncating copy would take one for the other.
    expect(equalDigests(digest.replace(/0/, '\u0130'), digest)).toBe(false);
  });
});
