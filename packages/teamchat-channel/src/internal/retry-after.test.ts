import { describe, expect, it } from 'vitest';
import { retryAfterMs } from './retry-after.js';

const NOW = Date.parse('2024-01-01T00:00:00Z');

describe('retryAfterMs', () => {
  it('reads Retry-After in seconds or as an HTTP date', () => {
    expect(retryAfterMs({ 'retry-after': '2' }, NOW)).toBe(2000);
    expect(retryAfterMs({ 'retry-after': 'Mon, 01 Jan 2024 00:00:03 GMT' }, NOW)).toBe(3000);
  });

  it("reads Rocket.Chat's X-RateLimit-Reset in Unix milliseconds, and Unix seconds or a delay from others", () => {
    expect(retryAfterMs({ 'x-ratelimit-reset': String(NOW + 1500) }, NOW)).toBe(1500);
    expect(retryAfterMs({ 'x-ratelimit-reset': String(NOW / 1000 + 4) }, NOW)).toBe(4000);
    expect(retryAfterMs({ 'x-ratelimit-reset': '7' }, NOW)).toBe(7000);
  });

  it('prefers Retry-After, never answers a negative wait, and is undefined when nothing says', () => {
    expect(retryAfterMs({ 'retry-after': '1', 'x-ratelimit-reset': String(NOW + 9000) }, NOW)).toBe(1000);
    expect(retryAfterMs({ 'x-ratelimit-reset': String(NOW - 500) }, NOW)).toBe(0);
    expect(retryAfterMs({ 'retry-after': 'soon' }, NOW)).toBeUndefined();
    expect(retryAfterMs({}, NOW)).toBeUndefined();
  });
});
