import { md5Hex, signRequest } from '@herald/protocol-core';
import { describe, expect, it } from 'vitest';
import type { ApiApp } from './api-app.js';
import { authenticateRequest } from './request-auth.js';

const app: ApiApp = { id: '1', key: 'app-key', secret: 'app-secret', enabled: true, allowedOrigins: ['*'] };
const body = new TextEncoder().encode('{"name":"e","data":"{}","channel":"a"}');
const now = 1_700_000_000;

function signedUrl(
  path: string,
  options: { signedPath?: string; key?: string; secret?: string; timestamp?: number; md5?: string } = {},
): URL {
  const params = signRequest(
    { key: options.key ?? app.key, secret: options.secret ?? app.secret },
    { method: 'POST', path: options.signedPath ?? path, body },
    options.timestamp ?? now,
  );
  if (options.md5 !== undefined) params.body_md5 = options.md5;
  return new URL(`http://localhost${path}?${new URLSearchParams(params)}`);
}

const check = (url: URL, extra: { prefix?: string; authorization?: string } = {}) =>
  authenticateRequest(app, { method: 'POST', url, body, now, ...extra });

describe('authenticateRequest', () => {
  it('accepts a request signed as the server SDKs sign it', () => {
    expect(check(signedUrl('/apps/1/events'))).toEqual({ ok: true, value: 'signature' });
  });

  it.each([
    ['plain', { filter_by_prefix: 'presence-' }],
    ['percent-encoded (the decoded check)', { filter_by_prefix: 'presence-', info: 'a b,c' }],
    ['named like an object property', { constructor: 'x', toString: 'z', q: 'a b' }],
  ])('accepts a signed GET whose extra parameters are %s', (_name, query) => {
    const params = signRequest(app, { method: 'GET', path: '/apps/1/channels', query }, now);
    const url = new URL(`http://localhost/apps/1/channels?${new URLSearchParams(params)}`);
    expect(authenticateRequest(app, { method: 'GET', url, body: new Uint8Array(), now })).toEqual({
      ok: true,
      value: 'signature',
    });
  });

  it('accepts the Bearer secret and refuses a wrong one', () => {
    const url = new URL('http://localhost/apps/1/events');
    expect(check(url, { authorization: 'Bearer app-secret' })).toEqual({ ok: true, value: 'bearer' });
    expect(check(url, { authorization: 'bearer app-secret' }).ok).toBe(true);
    expect(check(url, { authorization: 'Bearer app-secre' })).toEqual({
      ok: false,
      error: 'Bearer token does not match the app',
    });
  });

  it('refuses a timestamp 601 seconds old and accepts one 600 seconds old', () => {
    expect(check(signedUrl('/apps/1/events', { timestamp: now - 601 })).ok).toBe(false);
    expect(check(signedUrl('/apps/1/events', { timestamp: now - 600 })).ok).toBe(true);
  });

  it('refuses a body_md5 that does not match the body', () => {
    const result = check(signedUrl('/apps/1/events', { md5: md5Hex('{}') }));
    expect(result).toEqual({ ok: false, error: 'body_md5 does not match the request body' });
  });

  it('refuses a signature made with another secret', () => {
    expect(check(signedUrl('/apps/1/events', { secret: 'foreign' }))).toEqual({
      ok: false,
      error: 'auth_signature does not match the request',
    });
  });

  it('refuses an auth_key that is not the app key', () => {
    expect(check(signedUrl('/apps/1/events', { key: 'other-key' }))).toEqual({
      ok: false,
      error: 'auth_key does not match the app',
    });
  });

  it('refuses a request with neither a Bearer header nor a signature', () => {
    expect(check(new URL('http://localhost/apps/1/events')).ok).toBe(false);
    expect(check(new URL('http://localhost/apps/1/events'), { authorization: 'Basic eDp5' }).ok).toBe(false);
  });

  it('accepts a signature over the path with or without the prefix when a prefix is set', () => {
    const full = '/realtime/apps/1/events';
    expect(check(signedUrl(full), { prefix: '/realtime' }).ok).toBe(true);
    expect(check(signedUrl(full, { signedPath: '/apps/1/events' }), { prefix: '/realtime' }).ok).toBe(true);
    expect(check(signedUrl(full, { signedPath: '/apps/1/events' })).ok).toBe(false);
    expect(check(signedUrl(full, { signedPath: '/other/apps/1/events' }), { prefix: '/realtime' }).ok).toBe(
      false,
    );
  });

  it('accepts a previous secret as Bearer or signature until its grace period ends', () => {
    const rotated: ApiApp = {
      ...app,
      secret: 'new-secret',
      previousSecrets: [
        { secret: 'app-secret', until: Date.now() + 60_000 },
        { secret: 'expired-secret', until: Date.now() - 1 },
      ],
    };
    const url = new URL('http://localhost/apps/1/events');
    const auth = (target: URL, authorization?: string) =>
      authenticateRequest(rotated, { method: 'POST', url: target, body, now, authorization });
    expect(auth(url, 'Bearer app-secret')).toEqual({ ok: true, value: 'bearer' });
    expect(auth(url, 'Bearer new-secret')).toEqual({ ok: true, value: 'bearer' });
    expect(auth(url, 'Bearer expired-secret').ok).toBe(false);
    expect(auth(signedUrl('/apps/1/events')).ok).toBe(true);
    expect(auth(signedUrl('/apps/1/events', { secret: 'expired-secret' })).ok).toBe(false);
  });
});
