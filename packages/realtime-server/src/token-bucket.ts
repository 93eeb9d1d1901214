// A token bucket, as plain data and pure functions (time passed in): `rate` tokens a second, holding at most
// `burst`. Kept as two numbers per address so per-address state stays small.

/** One bucket's state: tokens left at `at` (epoch ms). */
export interface TokenBucket {
  tokens: number;
  at: number;
}

/** A full bucket at `now`. */
export function fullBucket(burst: number, now: number): TokenBucket {
  return { tokens: burst, at: now };
}

function refill(bucket: TokenBucket, rate: number, burst: number, now: number): void {
  if (now > bucket.at) {
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * rate);
    bucket.at = now;
  }
}

/**
 * Seconds until a token is there without taking it: 0 when one is, else at least 1 (as `Retry-After` counts whole
 * seconds).
 */
export function tokenWait(bucket: TokenBucket, rate: number, burst: number, now: number): number {
  refill(bucket, rate, burst, now);
  return bucket.tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / rate));
}

/** Takes one token: 0 when taken, else the seconds until one is there (see {@link tokenWait}). */
export function takeToken(bucket: TokenBucket, rate: number, burst: number, now: number): number {
  const wait = tokenWait(bucket, rate, burst, now);
  if (wait === 0) bucket.tokens -= 1;
  return wait;
}

/** Whether the bucket has refilled to `burst` by `now`: then forgetting it changes nothing. */
export function isFull(bucket: TokenBucket, rate: number, burst: number, now: number): boolean {
  refill(bucket, rate, burst, now);
  return bucket.tokens >= burst;
}
