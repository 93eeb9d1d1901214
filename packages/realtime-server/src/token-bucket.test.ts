import { describe, expect, it } from 'vitest';
import { fullBucket, isFull, takeToken, tokenWait } from './token-bucket.js';

describe('takeToken', () => {
  it('lets a burst through, then refuses with the seconds until the next token', () => {
    const bucket = fullBucket(3, 0);
    expect([takeToken(bucket, 3, 3, 0), takeToken(bucket, 3, 3, 0), takeToken(bucket, 3, 3, 0)]).toEqual([
      0, 0, 0,
    ]);
    expect(takeToken(bucket, 3, 3, 0)).toBe(1);
  });

  it('refills at the rate, never past the burst', () => {
    const bucket = fullBucket(2, 0);
    takeToken(bucket, 2, 2, 0);
    takeToken(bucket, 2, 2, 0);
    expect(takeToken(bucket, 2, 2, 400)).toBe(1);
    expect(takeToken(bucket, 2, 2, 500)).toBe(0);
    expect(isFull(bucket, 2, 2, 10_000)).toBe(true);
    expect(bucket.tokens).toBe(2);
  });

  it('answers whole seconds for slow rates', () => {
    const bucket = fullBucket(1, 0);
    takeToken(bucket, 0.2, 1, 0);
    expect(takeToken(bucket, 0.2, 1, 0)).toBe(5);
  });
});

describe('tokenWait', () => {
  it('tells the wait for a token without taking one', () => {
    const bucket = fullBucket(1, 0);
    expect(tokenWait(bucket, 0.5, 1, 0)).toBe(0);
    expect(tokenWait(bucket, 0.5, 1, 0)).toBe(0);
    takeToken(bucket, 0.5, 1, 0);
    expect(tokenWait(bucket, 0.5, 1, 1000)).toBe(1);
    expect(tokenWait(bucket, 0.5, 1, 2000)).toBe(0);
    expect(bucket.tokens).toBe(1);
  });
});
