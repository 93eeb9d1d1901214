// Waiting in the app's tests: on the event itself, with a generous outer limit for a busy machine.

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` answers true; fails naming `what` after `ms`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  what = 'the condition',
  ms = 60_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(20);
  }
}

/** Polls until `check` stops throwing (an `expect` inside it), or rethrows its last failure after `ms`. */
export async function eventually(check: () => void | Promise<void>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(50);
    }
  }
}
