/**
 * Resolves after `ms`. Only for a test that must let time pass (a lease or a timer that has to run out): to wait
 * for something to happen use `until`, and to prove that something did not happen use `fence`.
 */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
