/**
 * Whether a digest as given equals the computed one, in time that depends only on the length: every character is
 * compared, whatever the first difference. Lengths are public (a hex HMAC-SHA256 is 64 characters), so a length
 * mismatch answers at once.
 *
 * Written out rather than through `crypto.timingSafeEqual`, which needs both digests copied into buffers first:
 * on a signed REST call that copying cost more than the loop.
 */
export function equalDigests(given: string, computed: string): boolean {
  if (given.length !== computed.length) return false;
  let difference = 0;
  for (let i = 0; i < given.length; i++) difference |= given.charCodeAt(i) ^ computed.charCodeAt(i);
  return difference === 0;
}
