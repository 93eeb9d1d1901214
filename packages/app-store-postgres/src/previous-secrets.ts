import { fail, ok, type PreviousSecret, type Result } from '@herald/protocol-core';
import { isObject } from './internal/is-object.js';

/**
 * Reads a row's `previous_secrets` (`[{ secret, until }]`, `until` an ISO timestamp) and keeps the entries still
 * in their grace period at `now`. The server checks `until` again at each use, so an entry read here stops working
 * at its time even before the next read drops it.
 */
export function readPreviousSecrets(value: unknown, now: number): Result<PreviousSecret[], string> {
  if (value === null || value === undefined) return ok([]);
  if (!Array.isArray(value)) return fail('must be a JSON array');
  const secrets: PreviousSecret[] = [];
  for (const entry of value) {
    const until = isObject(entry) && typeof entry.until === 'string' ? Date.parse(entry.until) : Number.NaN;
    if (!isObject(entry) || typeof entry.secret !== 'string' || entry.secret === '' || Number.isNaN(until)) {
      return fail('must hold {"secret": string, "until": timestamp} entries');
    }
    if (until > now) secrets.push({ secret: entry.secret, until });
  }
  return ok(secrets);
}
