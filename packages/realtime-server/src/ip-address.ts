// IP addresses and ranges as bytes, so IPv4, IPv6 and IPv4-mapped IPv6 (`::ffff:127.0.0.1`, which a dual-stack
// socket reports for an IPv4 client) compare as the same address. Pure: no sockets, no DNS.

import { isIPv4, isIPv6 } from 'node:net';
import { fail, ok, type Result } from '@herald/protocol-core';

/** An address: 4 bytes (IPv4, also for IPv4-mapped IPv6) or 16 bytes (IPv6). */
export type IpBytes = Uint8Array;

/** A network: its first `prefix` bits must match `bytes`. */
export interface IpRange {
  readonly bytes: IpBytes;
  readonly prefix: number;
}

function ipv4Bytes(text: string): IpBytes {
  return Uint8Array.from(text.split('.'), Number);
}

function ipv6Bytes(text: string): IpBytes {
  const bytes = new Uint8Array(16);
  let groups = text;
  // A dotted IPv4 tail (`::ffff:1.2.3.4`) is the last two groups.
  const dot = text.lastIndexOf('.');
  if (dot >= 0) {
    const colon = text.lastIndexOf(':');
    bytes.set(ipv4Bytes(text.slice(colon + 1)), 12);
    groups = `${text.slice(0, colon + 1)}0:0`;
  }
  const [head = '', tail] = groups.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const all = [...left, ...new Array<string>(8 - left.length - right.length).fill('0'), ...right];
  all.forEach((group, index) => {
    const value = Number.parseInt(group, 16);
    if (dot >= 0 && index >= 6) return;
    bytes[index * 2] = value >> 8;
    bytes[index * 2 + 1] = value & 0xff;
  });
  return bytes;
}

/** Whether 16 bytes are an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`). */
function isMapped(bytes: IpBytes): boolean {
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false;
  return bytes[10] === 0xff && bytes[11] === 0xff;
}

/**
 * Reads an address as text (`203.0.113.7`, `2001:db8::1`, `::ffff:127.0.0.1`, also `[::1]`); IPv4-mapped IPv6
 * comes back as its 4 IPv4 bytes. Undefined when the text is not an address.
 */
export function parseIp(text: string): IpBytes | undefined {
  let address = text.trim();
  if (address.startsWith('[') && address.endsWith(']')) address = address.slice(1, -1);
  // A zone (`fe80::1%eth0`) names an interface of the peer's host, not a different address.
  const zone = address.indexOf('%');
  if (zone >= 0) address = address.slice(0, zone);
  if (isIPv4(address)) return ipv4Bytes(address);
  if (!isIPv6(address)) return undefined;
  const bytes = ipv6Bytes(address.toLowerCase());
  return isMapped(bytes) ? bytes.slice(12) : bytes;
}

/** One text per address, whatever form it came in: the map key of per-address state. */
export function formatIp(bytes: IpBytes): string {
  if (bytes.length === 4) return bytes.join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return groups.join(':');
}

/**
 * Reads an address or a CIDR range (`10.0.0.0/8`, `fd00::/8`, `::ffff:10.0.0.0/104`); a bare address is a range
 * of one.
 */
export function parseIpRange(text: string): Result<IpRange, string> {
  const slash = text.indexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  const parsed = parseIp(address);
  if (!parsed) return fail(`"${text}" is not an IP address or CIDR range`);
  const mappedShift = parsed.length === 4 && address.includes(':') ? 96 : 0;
  const max = parsed.length * 8;
  if (slash < 0) return ok({ bytes: parsed, prefix: max });
  const prefixText = text.slice(slash + 1);
  const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) - mappedShift : Number.NaN;
  if (!(prefix >= 0 && prefix <= max)) {
    return fail(`"${text}" has a prefix length outside 0-${max + mappedShift}`);
  }
  return ok({ bytes: parsed, prefix });
}

/** Whether an address (from {@link parseIp}) lies in a range; IPv4 and IPv6 ranges never hold each other's. */
export function isInRange(address: IpBytes, range: IpRange): boolean {
  if (address.length !== range.bytes.length) return false;
  const whole = range.prefix >> 3;
  for (let i = 0; i < whole; i++) if (address[i] !== range.bytes[i]) return false;
  const rest = range.prefix & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((address[whole] ?? 0) & mask) === ((range.bytes[whole] ?? 0) & mask);
}
