import { safeEqual } from '@herald/protocol-core';
import type { Context } from 'hono';
import { bearerToken } from './internal/http.js';
import type { NotificationUser } from './notification-user.js';
import type { UserTokenVerifier } from './user-token.js';

/** The header writes of a cookie session carry the page's CSRF token in. */
export const CSRF_HEADER = 'X-CSRF-Token';

/** How a request finds its user: a user token, or the host's own session hook with its CSRF token. */
export interface UserAuthOptions {
  /**
   * Checks `Authorization: Bearer <user token>`. A request carrying a bearer token is judged by it alone:
   * a bad token is refused, never passed on to `authenticate`. Its writes need no CSRF token, since a
   * browser never adds that header to a cross-site request by itself.
   */
  readonly userTokens?: UserTokenVerifier | undefined;
  /** Finds the signed-in user of a request without a bearer token (a cookie session, say). */
  readonly authenticate?:
    | ((c: Context) => Promise<NotificationUser | undefined> | NotificationUser | undefined)
    | undefined;
  /**
   * The CSRF token the page was given for this user; writes found by `authenticate` must send it in the
   * `X-CSRF-Token` header. Without this hook every such write is refused.
   */
  readonly csrfToken?:
    | ((c: Context, user: NotificationUser) => Promise<string | undefined> | string | undefined)
    | undefined;
}

/** Who a request is from, or why it is refused. */
export type UserAuthOutcome =
  | { readonly ok: true; readonly user: NotificationUser; readonly via: 'token' | 'session' }
  | {
      readonly ok: false;
      readonly code: 'unauthenticated' | 'csrf_token_mismatch';
      readonly message: string;
    };

/** Finds a request's user; `write` asks for the CSRF check that cookie-session writes need. */
export type UserAuth = (c: Context, options: { write: boolean }) => Promise<UserAuthOutcome>;

/**
 * Creates the user check shared by the JSON API, the preferences routes and `/broadcasting/auth`: a bearer
 * user token when the request has one, else the host's `authenticate` hook plus CSRF on writes.
 *
 * @example
 * const identify = createUserAuth({ userTokens, authenticate: (c) => session.user(c), csrfToken: (c, u) => session.csrf(u) });
 */
export function createUserAuth(options: UserAuthOptions): UserAuth {
  return async (c, { write }) => {
    const token = options.userTokens ? bearerToken(c.req.header('authorization')) : undefined;
    if (token !== undefined && options.userTokens) {
      const verified = await options.userTokens.verify(token);
      return verified.ok
        ? { ok: true, user: verified.value, via: 'token' }
        : { ok: false, code: 'unauthenticated', message: verified.error.message };
    }
    const user = options.authenticate ? await options.authenticate(c) : undefined;
    if (user === undefined) {
      return { ok: false, code: 'unauthenticated', message: 'sign in to see notifications' };
    }
    if (write) {
      const expected = options.csrfToken ? await options.csrfToken(c, user) : undefined;
      const sent = c.req.header(CSRF_HEADER);
      if (!expected || !sent || !safeEqual(sent, expected)) {
        return {
          ok: false,
          code: 'csrf_token_mismatch',
          message: `send the page's CSRF token in the ${CSRF_HEADER} header`,
        };
      }
    }
    return { ok: true, user, via: 'session' };
  };
}
