/**
 * How long a 429 asks to wait, in milliseconds: `Retry-After` (seconds or an HTTP date) first, then
 * `X-RateLimit-Reset`, which Rocket.Chat sends as a Unix time in milliseconds (other servers send Unix
 * seconds or seconds to wait; the size of the number tells which). Undefined when neither says.
 */
export function retryAfterMs(
  headers: Readonly<Record<string, string>>,
  now = Date.now(),
): number | undefined {
  const retryAfter = headers['retry-after']?.trim();
  if (retryAfter) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const reset = headers['x-ratelimit-reset']?.trim();
  if (reset) {
    const value = Number(reset);
    if (Number.isFinite(value)) {
      if (value > 1e12) return Math.max(0, value - now);
      if (value > 1e9) return Math.max(0, value * 1000 - now);
      return Math.max(0, value * 1000);
    }
  }
  return undefined;
}
