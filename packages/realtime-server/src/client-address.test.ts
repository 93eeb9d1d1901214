import { describe, expect, it } from 'vitest';
import { clientAddress, parseTrustedProxies } from './client-address.js';
import { formatIp } from './ip-address.js';

function proxies(...entries: string[]) {
  const parsed = parseTrustedProxies(entries);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}

function client(peer: string, forwardedFor: string, trusted: string[]): string | undefined {
  const address = clientAddress(peer, forwardedFor, proxies(...trusted));
  return address && formatIp(address);
}

describe('clientAddress', () => {
  it('takes the peer address when no proxy is trusted, whatever the header says', () => {
    expect(client('127.0.0.2', '203.0.113.7', [])).toBe('127.0.0.2');
  });

  it('ignores a forged header from a peer that is not a trusted proxy', () => {
    expect(client('127.0.0.2', '203.0.113.7', ['127.0.0.1'])).toBe('127.0.0.2');
  });

  it('takes the right-most address that is not a trusted proxy', () => {
    expect(client('10.0.0.2', '198.51.100.1, 203.0.113.7, 10.0.0.9', ['10.0.0.0/8'])).toBe('203.0.113.7');
  });

  it('takes the left-most entry when every hop is a trusted proxy', () => {
    expect(client('10.0.0.2', '10.0.0.8, 10.0.0.9', ['10.0.0.0/8'])).toBe('10.0.0.8');
  });

  it('stops at a malformed entry, at the last address it could read', () => {
    expect(client('10.0.0.2', '203.0.113.7, unknown, 10.0.0.9', ['10.0.0.0/8'])).toBe('10.0.0.9');
  });

  it('reads entries with ports and brackets, and IPv4-mapped peers', () => {
    expect(client('::ffff:127.0.0.1', '203.0.113.7:5123', ['127.0.0.1'])).toBe('203.0.113.7');
    expect(client('::1', '[2001:db8::7]:443', ['::1'])).toBe('2001:db8:0:0:0:0:0:7');
    expect(client('::1', '2001:db8::7', ['::1/128'])).toBe('2001:db8:0:0:0:0:0:7');
  });

  it('takes the peer when a trusted proxy sends no header', () => {
    expect(client('127.0.0.1', '', ['127.0.0.1'])).toBe('127.0.0.1');
  });
});

describe('parseTrustedProxies', () => {
  it('names the first bad entry by its index', () => {
    expect(parseTrustedProxies(['10.0.0.0/8', 'ingress'])).toEqual({
      ok: false,
      error: { index: 1, message: expect.stringContaining('ingress') },
    });
  });
});
