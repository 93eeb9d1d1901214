import { describe, expect, it } from 'vitest';
import { formatIp, isInRange, parseIp, parseIpRange } from './ip-address.js';

function inRange(address: string, range: string): boolean {
  const parsed = parseIpRange(range);
  if (!parsed.ok) throw new Error(parsed.error);
  const bytes = parseIp(address);
  if (!bytes) throw new Error(`not an address: ${address}`);
  return isInRange(bytes, parsed.value);
}

describe('parseIp', () => {
  it('reads IPv4 and IPv6 addresses into one text per address', () => {
    expect(formatIp(parseIp('127.0.0.2') as Uint8Array)).toBe('127.0.0.2');
    expect(formatIp(parseIp('::1') as Uint8Array)).toBe('0:0:0:0:0:0:0:1');
    expect(formatIp(parseIp('2001:DB8::a:1') as Uint8Array)).toBe('2001:db8:0:0:0:0:a:1');
    expect(formatIp(parseIp('[::1]') as Uint8Array)).toBe('0:0:0:0:0:0:0:1');
  });

  it('reads an IPv4-mapped IPv6 address as the IPv4 address, in every spelling', () => {
    for (const text of ['::ffff:127.0.0.1', '::FFFF:7f00:1', '0000:0000:0000:0000:0000:ffff:7f00:0001']) {
      expect(formatIp(parseIp(text) as Uint8Array)).toBe('127.0.0.1');
    }
  });

  it('refuses what is not an address', () => {
    for (const text of ['', 'localhost', '256.0.0.1', '1.2.3', '::g', '1.2.3.4/8']) {
      expect(parseIp(text)).toBeUndefined();
    }
  });
});

describe('parseIpRange', () => {
  it('matches addresses inside an IPv4 range and not outside', () => {
    expect(inRange('10.1.2.3', '10.0.0.0/8')).toBe(true);
    expect(inRange('11.0.0.1', '10.0.0.0/8')).toBe(false);
    expect(inRange('192.168.1.130', '192.168.1.128/25')).toBe(true);
    expect(inRange('192.168.1.127', '192.168.1.128/25')).toBe(false);
    expect(inRange('203.0.113.9', '0.0.0.0/0')).toBe(true);
  });

  it('takes a bare address as a range of one', () => {
    expect(inRange('127.0.0.1', '127.0.0.1')).toBe(true);
    expect(inRange('127.0.0.2', '127.0.0.1')).toBe(false);
  });

  it('matches IPv6 ranges, and an IPv4-mapped client against an IPv4 range', () => {
    expect(inRange('fd12:3456::1', 'fd00::/8')).toBe(true);
    expect(inRange('fe80::1', 'fd00::/8')).toBe(false);
    expect(inRange('::ffff:10.0.0.5', '10.0.0.0/8')).toBe(true);
    expect(inRange('10.0.0.5', '::ffff:10.0.0.0/104')).toBe(true);
    expect(inRange('::1', '127.0.0.0/8')).toBe(false);
    expect(inRange('127.0.0.1', '::/0')).toBe(false);
  });

  it('refuses a bad address or prefix with the entry in the message', () => {
    expect(parseIpRange('10.0.0.0/33')).toEqual({ ok: false, error: expect.stringContaining('10.0.0.0/33') });
    expect(parseIpRange('fd00::/129').ok).toBe(false);
    expect(parseIpRange('10.0.0.0/').ok).toBe(false);
    expect(parseIpRange('proxy.internal').ok).toBe(false);
    expect(parseIpRange('::ffff:10.0.0.0/90').ok).toBe(false);
  });
});
