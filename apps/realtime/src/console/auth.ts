// Who may use the console: the token is exchanged for a signed session cookie, and every state-changing request
// also carries a CSRF token derived from the session. Both are derived from the console token alone, so every node
// serving the same token accepts a session signed by any of them, and changing the token signs everyone out.

import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The session cookie's name. */
export const SESSION_COOKIE = 'herald_console';
/** The header a state-changing request carries its CSRF token in. */
export const CSRF_HEADER = 'x-console-csrf';

/** A signed-in session: its nonce (which the CSRF token is bound to) and when it ends. */
export interface ConsoleSession {
  readonly nonce: string;
  readonly expiresAt: number;
}

/** Signs and checks console sessions for one token. */
export interface ConsoleAuth {
  /** Whether a token as given is the console's, compared in constant time (also across lengths). */
  checkToken(given: string): boolean;
  /** A new session's cookie value. */
  issue(now?: number): string;
  /** The session a cookie value carries, when its signature holds and it has not expired. */
  verify(cookie: string | undefined, now?: number): ConsoleSession | undefined;
  /** The CSRF token of a session. */
  csrfOf(session: ConsoleSession): string;
  /** Whether a request's CSRF token belongs to the session (constant time). */
  checkCsrf(session: ConsoleSession, given: string | undefined): boolean;
  readonly sessionMs: number;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Compares two texts in constant time: their digests always have the same length, so nothing leaks through it. */
function sameText(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

export function createConsoleAuth(token: string, sessionHours: number): ConsoleAuth {
  // A key of its own for signing, so the token itself never signs anything a browser holds.
  const key = createHash('sha256').update(`herald-console-session\u0000${token}`).digest();
  const mac = (text: string) => createHmac('sha256', key).update(text).digest('base64url');
  const sessionMs = Math.round(sessionHours * 3_600_000);
  const csrfOf = (session: ConsoleSession) => mac(`csrf.${session.nonce}`);
  return {
    sessionMs,
    checkToken: (given) => sameText(given, token),
    issue(now = Date.now()) {
      const body = `v1.${now + sessionMs}.${randomBytes(18).toString('base64url')}`;
      return `${body}.${mac(body)}`;
    },
    verify(cookie, now = Date.now()) {
      if (!cookie) return undefined;
      const parts = cookie.split('.');
      if (parts.length !== 4 || parts[0] !== 'v1') return undefined;
      const [, expires, nonce, signature] = parts as [string, string, string, string];
      if (!sameText(signature, mac(`v1.${expires}.${nonce}`))) return undefined;
      const expiresAt = Number(expires);
      if (!Number.isFinite(expiresAt) || expiresAt <= now) return undefined;
      return { nonce, expiresAt };
    },
    csrfOf,
    checkCsrf: (session, given) => given !== undefined && sameText(given, csrfOf(session)),
  };
}

/** A fresh token for a console started with embedded defaults: printed once, valid until the process stops. */
export function makeConsoleToken(): string {
  return randomBytes(24).toString('base64url');
}
