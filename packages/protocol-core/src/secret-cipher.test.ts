import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretCipher, isSealed, openWithoutKey, parseStoreKey } from './secret-cipher.js';

const key = randomBytes(32);

describe('parseStoreKey', () => {
  it('reads 64 hex characters and base64 of 32 bytes', () => {
    expect(parseStoreKey(key.toString('hex'))).toEqual({ ok: true, value: key });
    expect(parseStoreKey(key.toString('base64'))).toEqual({ ok: true, value: key });
    expect(parseStoreKey(key.toString('base64url'))).toEqual({ ok: true, value: key });
  });

  it('refuses anything else without repeating the value', () => {
    for (const text of [
      '',
      'secret',
      key.toString('hex').slice(2),
      randomBytes(16).toString('base64'),
      'z'.repeat(64),
    ]) {
      const parsed = parseStoreKey(text);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok && text !== '') expect(parsed.error).not.toContain(text);
    }
  });
});

describe('createSecretCipher', () => {
  const cipher = createSecretCipher(key);

  it('seals a secret that only the same key opens, with a fresh IV each time', () => {
    const sealed = cipher.seal('shop-secret');
    expect(isSealed(sealed)).toBe(true);
    expect(sealed).not.toContain('shop-secret');
    expect(sealed.startsWith(`herald:v1:${cipher.keyId}:`)).toBe(true);
    expect(cipher.seal('shop-secret')).not.toBe(sealed);
    expect(cipher.open(sealed)).toEqual({ ok: true, value: 'shop-secret' });
    expect(createSecretCipher(randomBytes(32)).open(sealed)).toEqual({ ok: false, error: 'wrong_key' });
  });

  it('refuses a value whose ciphertext was altered: the GCM tag fails', () => {
    const sealed = cipher.seal('shop-secret');
    const bytes = Buffer.from(sealed.slice(sealed.lastIndexOf(':') + 1), 'base64');
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
    const altered = `${sealed.slice(0, sealed.lastIndexOf(':') + 1)}${bytes.toString('base64')}`;
    expect(cipher.open(altered)).toEqual({ ok: false, error: 'wrong_key' });
    expect(cipher.open(`herald:v1:${cipher.keyId}:AAAA`)).toEqual({ ok: false, error: 'corrupt' });
  });

  it('passes plaintext through, and without a key refuses sealed values', () => {
    expect(cipher.open('plain-secret')).toEqual({ ok: true, value: 'plain-secret' });
    expect(openWithoutKey('plain-secret')).toEqual({ ok: true, value: 'plain-secret' });
    expect(openWithoutKey(cipher.seal('x'))).toEqual({ ok: false, error: 'key_required' });
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => createSecretCipher(randomBytes(16))).toThrow(RangeError);
  });
});
