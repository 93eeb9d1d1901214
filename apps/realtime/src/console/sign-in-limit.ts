// How often one client address may get the console token wrong: a token bucket per address (the server's own, as
// its per-address upgrade limits use), of which only a failed sign-in takes a token. An address with none left is
// refused before its token is even compared, until the bucket refills. Per node: each node counts what reaches it.

import { fullBucket, isFull, type TokenBucket, takeToken, tokenWait } from '@herald/realtime-server';

/** Failed sign-ins one address may make in a burst, and how many it regains a minute. */
export const SIGN_IN_FAILURES_PER_MINUTE = 10;

/** Addresses tracked at most: past it, those whose buckets refilled are forgotten, then the oldest. */
const MAX_ADDRESSES = 10_000;

/** The failed sign-ins of each client address. */
export interface SignInLimit {
  /** 0 when `address` may try a token now, else the seconds until it may (`Retry-After`). */
  wait(address: string, now?: number): number;
  /** Counts a wrong token from `address`. */
  failed(address: string, now?: number): void;
  /** Addresses tracked (for tests). */
  readonly size: number;
}

export function createSignInLimit(perMinute = SIGN_IN_FAILURES_PER_MINUTE): SignInLimit {
  const rate = perMinute / 60;
  const burst = perMinute;
  const buckets = new Map<string, TokenBucket>();

  function makeRoom(now: number): void {
    for (const [address, bucket] of buckets) if (isFull(bucket, rate, burst, now)) buckets.delete(address);
    // Insertion order: the addresses that failed first go first.
    for (const address of buckets.keys()) {
      if (buckets.size < MAX_ADDRESSES) break;
      buckets.delete(address);
    }
  }

  return {
    wait(address, now = Date.now()) {
      const bucket = buckets.get(address);
      return bucket ? tokenWait(bucket, rate, burst, now) : 0;
    },
    failed(address, now = Date.now()) {
      let bucket = buckets.get(address);
      if (!bucket) {
        if (buckets.size >= MAX_ADDRESSES) makeRoom(now);
        bucket = fullBucket(burst, now);
        buckets.set(address, bucket);
      }
      takeToken(bucket, rate, burst, now);
    },
    get size() {
      return buckets.size;
    },
  };
}
