import { generateKeyPairSync } from 'node:crypto';
import { SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { isNotificationError } from './errors.js';
import { createUserTokenVerifier, signUserToken } from './user-token.js';

const SECRET = 'a-shared-secret-of-at-least-32-bytes!';
const now = () => Math.floor(Date.now() / 1000);

describe('signUserToken and createUserTokenVerifier', () => {
  it('round-trips an HS256 token to the user it names', async () => {
    const token = await signUserToken({ secret: SECRET, userId: 42, name: 'Ada', userType: 'Member' });
    const verifier = await createUserTokenVerifier({ secret: SECRET });
    expect(await verifier.verify(token)).toEqual({
      ok: true,
      value: { id: '42', type: 'Member', name: 'Ada' },
    });
  });

  it('carries the user’s email address, and drops an email claim that is no address', async () => {
    const verifier = await createUserTokenVerifier({ secret: SECRET });
    const token = await signUserToken({ secret: SECRET, userId: 42, email: 'ada@example.test' });
    expect(await verifier.verify(token)).toMatchObject({
      ok: true,
      value: { id: '42', email: 'ada@example.test' },
    });
    const odd = await signUserToken({ secret: SECRET, userId: 42, email: 'not an address' });
    const result = await verifier.verify(odd);
    expect(result.ok && result.value.email).toBeUndefined();
  });

  it('round-trips an EdDSA token checked with the public key only', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const token = await signUserToken({
      privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      userId: 'ada',
      expiresIn: 60,
    });
    const verifier = await createUserTokenVerifier({
      publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    });
    expect(await verifier.verify(token)).toMatchObject({ ok: true, value: { id: 'ada' } });
    // Nor can an HS256 token get past a verifier that only knows the public key.
    const hs = await signUserToken({ secret: SECRET, userId: 'ada' });
    expect(await verifier.verify(hs)).toMatchObject({ ok: false, error: { reason: 'bad_signature' } });
  });

  it('refuses a token signed with another secret', async () => {
    const token = await signUserToken({ secret: `${SECRET}-other`, userId: 'ada' });
    const verifier = await createUserTokenVerifier({ secret: SECRET });
    expect(await verifier.verify(token)).toMatchObject({ ok: false, error: { reason: 'bad_signature' } });
  });

  it('accepts a token expired within the clock tolerance and refuses one expired beyond it', async () => {
    const verifier = await createUserTokenVerifier({ secret: SECRET, clockToleranceSeconds: 30 });
    const key = new TextEncoder().encode(SECRET);
    const expiredAt = async (exp: number) =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('ada')
        .setAudience('herald-notifications')
        .setExpirationTime(exp)
        .sign(key);
    expect((await verifier.verify(await expiredAt(now() - 10))).ok).toBe(true);
    expect(await verifier.verify(await expiredAt(now() - 120))).toMatchObject({
      ok: false,
      error: { reason: 'expired' },
    });
  });

  it('refuses a token without an expiry', async () => {
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('ada')
      .setAudience('herald-notifications')
      .sign(new TextEncoder().encode(SECRET));
    const verifier = await createUserTokenVerifier({ secret: SECRET });
    expect(await verifier.verify(token)).toMatchObject({ ok: false, error: { reason: 'claim_mismatch' } });
  });

  it('checks the audience always and the issuer when configured', async () => {
    const verifier = await createUserTokenVerifier({
      secret: SECRET,
      audience: 'inbox',
      issuer: 'https://app',
    });
    const sign = (claims: { audience?: string; issuer?: string }) =>
      signUserToken({ secret: SECRET, userId: 'ada', ...claims });
    const right = await sign({ audience: 'inbox', issuer: 'https://app' });
    const otherAudience = await sign({ issuer: 'https://app' });
    const otherIssuer = await sign({ audience: 'inbox', issuer: 'evil' });
    const noIssuer = await sign({ audience: 'inbox' });
    expect((await verifier.verify(right)).ok).toBe(true);
    for (const token of [otherAudience, otherIssuer, noIssuer]) {
      expect(await verifier.verify(token)).toMatchObject({ ok: false, error: { reason: 'claim_mismatch' } });
    }
  });

  it('refuses an unsigned token and text that is not a JWT', async () => {
    const verifier = await createUserTokenVerifier({ secret: SECRET });
    const unsigned = new UnsecuredJWT({ sub: 'ada', aud: 'herald-notifications' })
      .setExpirationTime('5m')
      .encode();
    expect((await verifier.verify(unsigned)).ok).toBe(false);
    expect(await verifier.verify('not.a.jwt')).toMatchObject({ ok: false, error: { reason: 'malformed' } });
  });

  it('refuses a short secret and a missing key with invalid_options', async () => {
    const short = await createUserTokenVerifier({ secret: 'short' }).catch((error: unknown) => error);
    expect(isNotificationError(short) && short.code).toBe('invalid_options');
    const none = await signUserToken({ userId: 'ada' }).catch((error: unknown) => error);
    expect(isNotificationError(none) && none.code).toBe('invalid_options');
  });
});
