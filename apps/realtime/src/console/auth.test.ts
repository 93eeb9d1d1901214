import { describe, expect, it } from 'vitest';
import { createConsoleAuth, makeConsoleToken } from './auth.js';

const TOKEN = 'a-console-token-of-some-length';

describe('createConsoleAuth', () => {
  it('accepts the token and refuses others, also a prefix or a longer one', () => {
    const auth = createConsoleAuth(TOKEN, 1);
    expect(auth.checkToken(TOKEN)).toBe(true);
    expect(auth.checkToken(TOKEN.slice(0, -1))).toBe(false);
    expect(auth.checkToken(`${TOKEN}x`)).toBe(false);
    expect(auth.checkToken('')).toBe(false);
  });

  it('verifies a session it issued until it expires', () => {
    const auth = createConsoleAuth(TOKEN, 1);
    const cookie = auth.issue(1_000);
    expect(auth.verify(cookie, 2_000)).toMatchObject({ expiresAt: 1_000 + 3_600_000 });
    expect(auth.verify(cookie, 1_000 + 3_600_000)).toBeUndefined();
  });

  it('refuses a session signed with another token, or with a changed expiry', () => {
    const cookie = createConsoleAuth('another-token-entirely-here', 1).issue(1_000);
    expect(createConsoleAuth(TOKEN, 1).verify(cookie, 2_000)).toBeUndefined();
    const own = createConsoleAuth(TOKEN, 1);
    const [version, , nonce, signature] = own.issue(1_000).split('.');
    expect(own.verify(`${version}.99999999999999.${nonce}.${signature}`, 2_000)).toBeUndefined();
    expect(own.verify('garbage', 2_000)).toBeUndefined();
    expect(own.verify(undefined, 2_000)).toBeUndefined();
  });

  it('ties the CSRF token to its session: another session’s does not pass', () => {
    const auth = createConsoleAuth(TOKEN, 1);
    const one = auth.verify(auth.issue(1_000), 2_000);
    const two = auth.verify(auth.issue(1_000), 2_000);
    if (!one || !two) throw new Error('sessions did not verify');
    expect(auth.checkCsrf(one, auth.csrfOf(one))).toBe(true);
    expect(auth.checkCsrf(one, auth.csrfOf(two))).toBe(false);
    expect(auth.checkCsrf(one, undefined)).toBe(false);
  });

  it('makes a different long token each time', () => {
    const a = makeConsoleToken();
    expect(a.length).toBeGreaterThanOrEqual(32);
    expect(makeConsoleToken()).not.toBe(a);
  });
});
