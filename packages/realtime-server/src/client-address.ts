// Which address a request comes from when the server sits behind proxies: the peer's own address, unless the peer
// is a trusted proxy, in which case `X-Forwarded-For` is read from the right (each proxy appends the address it
// was reached from) and the first address that is not itself a trusted proxy is the client. Anyone else's
// `X-Forwarded-For` is ignored, so a client cannot pick its own address.

import { fail, ok, type Result } from '@herald/protocol-core';
import { type IpBytes, type IpRange, isInRange, parseIp, parseIpRange } from './ip-address.js';

/** Trusted proxies as parsed ranges. */
export type TrustedProxies = readonly IpRange[];

/** Parses `trusted_proxies` entries (addresses or CIDR ranges); the first bad entry is the error, with its index. */
export function parseTrustedProxies(
  entries: readonly string[],
): Result<TrustedProxies, { index: number; message: string }> {
  const ranges: IpRange[] = [];
  for (const [index, entry] of entries.entries()) {
    const range = parseIpRange(entry);
    if (!range.ok) return fail({ index, message: range.error });
    ranges.push(range.value);
  }
  return ok(ranges);
}

function isTrusted(address: IpBytes, proxies: TrustedProxies): boolean {
  for (const range of proxies) if (isInRange(address, range)) return true;
  return false;
}

/** One `X-Forwarded-For` entry as an address: `1.2.3.4`, `1.2.3.4:5678`, `[2001:db8::1]:443` or `2001:db8::1`. */
function forwardedAddress(entry: string): IpBytes | undefined {
  const text = entry.trim();
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    return end < 0 ? undefined : parseIp(text.slice(1, end));
  }
  const colon = text.indexOf(':');
  // One colon: IPv4 with a port. More: IPv6 without brackets (it cannot carry a port).
  if (colon >= 0 && colon === text.lastIndexOf(':')) return parseIp(text.slice(0, colon));
  return parseIp(text);
}

/**
 * The client's address: `peer` itself unless it is a trusted proxy; then the right-most `X-Forwarded-For` entry
 * that is not a trusted proxy. A malformed entry stops the walk at the last good address (the proxy that passed it
 * on is the nearest address known); when every entry is a trusted proxy, the left-most one is the client.
 * Undefined only when `peer` is not an address.
 */
export function clientAddress(
  peer: string,
  forwardedFor: string,
  proxies: TrustedProxies,
): IpBytes | undefined {
  const address = parseIp(peer);
  if (!address || proxies.length === 0 || forwardedFor === '' || !isTrusted(address, proxies)) {
    return address;
  }
  let client = address;
  const entries = forwardedFor.split(',');
  for (let i = entries.length - 1; i >= 0; i--) {
    const hop = forwardedAddress(entries[i] as string);
    if (!hop) return client;
    client = hop;
    if (!isTrusted(hop, proxies)) return hop;
  }
  return client;
}
