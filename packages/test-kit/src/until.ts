import { sleep } from './sleep.js';

/** The outer limit of `until` when none is given: generous, since the tests share a busy two-core machine. */
export const UNTIL_LIMIT_MS = 30_000;

/** How often `until` looks again. */
const POLL_MS = 20;

/** What `until` waits for, for its failure message, and how long. */
export interface UntilOptions {
  /** Names the condition in the failure message (the check's own source by default). */
  readonly what?: string;
  /** The outer limit (30 s by default). */
  readonly limitMs?: number;
}

/**
 * Waits until `check` holds: it holds once it returns anything but `false` without throwing, so both a predicate
 * (`() => frames.length === 2`) and a block of `expect`s work. After the limit it fails naming the condition
 * (`what`, or the check's own source) and the last reason the check gave.
 */
export async function until(check: () => unknown, options: string | UntilOptions = {}): Promise<void> {
  const { what = String(check), limitMs = UNTIL_LIMIT_MS } =
    typeof options === 'string' ? { what: options } : options;
  const deadline = Date.now() + limitMs;
  for (;;) {
    let reason: unknown;
    try {
      if ((await check()) !== false) return;
    } catch (error) {
      reason = error;
    }
    if (Date.now() >= deadline) {
      const because = reason instanceof Error ? `: ${reason.message}` : '';
      throw new Error(`timed out after ${limitMs} ms waiting for ${what}${because}`, { cause: reason });
    }
    await sleep(POLL_MS);
  }
}
