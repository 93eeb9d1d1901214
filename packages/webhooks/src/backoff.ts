/** How retries are spaced and when they stop. */
export interface RetryOptions {
  /** How long after a request was queued it is retried before being dropped (300000 ms by default). */
  readonly maxElapsedMs?: number | undefined;
  /** The first retry waits up to this long (1000 ms by default). */
  readonly baseMs?: number | undefined;
  /** No single wait is longer than this (60000 ms by default). */
  readonly maxMs?: number | undefined;
}

/**
 * The wait before the next attempt: exponential backoff with full jitter (a uniform draw between 0 and
 * `min(maxMs, baseMs * 2^attempts)`), so receivers coming back are not hit by every node at once.
 * @example
 * ```ts
 * retryDelay(3, { baseMs: 100, maxMs: 5000 }); // somewhere in [0, 800]
 * ```
 */
export function retryDelay(attempts: number, options: RetryOptions = {}, random = Math.random): number {
  const base = options.baseMs ?? 1000;
  const cap = options.maxMs ?? 60_000;
  const ceiling = Math.min(cap, base * 2 ** Math.min(attempts, 30));
  return Math.floor(random() * ceiling);
}
