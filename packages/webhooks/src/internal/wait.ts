/** Resolves after `ms`. */
export const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for `work`, but no longer than `ms` (the work goes on unwatched). */
export async function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** Polls `done` every 10 ms until it holds or the clock passes `deadline`. */
export async function until(done: () => boolean, deadline: number): Promise<void> {
  while (!done() && Date.now() < deadline) await delay(10);
}
