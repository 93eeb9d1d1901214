import { sleep } from './sleep.js';

/** The outer limit of `until` when none is given: generous, since the tests share a busy two-core machine. */
export const UNTIL_LIMIT_MS = 30_000;

/** How often `until` looks again. */
const POLL_MS = 20;

/**
 * Waits until `check` holds: it holds once it returns anything but `false` without throwing, so both a predicate
 * (`() => frames.length === 2`) and a block of `expect`s work. After `limitMs` it fails naming `what` (or the
 * check's own source) and the last reason the check gave.
 */
export async function until(
  check: () => unknown,
  what?: string,
  limitMs: number = UNTIL_LIMIT_MS,
): Promise<void> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    let reason: unknown;
    try {
      if ((await check()) !== false) return;
      reason = undefined;
    } catch (error) {
      reason = error;
    }
    if (Date.now() >= deadline) {
      const because = reason instanceof Error ? `: ${reason.message}` : '';
      throw new Error(`timed out after ${limitMs} ms waiting for ${what ?? String(check)}${because}`, {
        cause: reason,
      });
    }
    await sleep(POLL_MS);
  }
}
