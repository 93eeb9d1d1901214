import { BellError } from './errors.js';

/** A user token the host's backend signed: the token itself, or a function that hands out a fresh one. */
export type AuthToken = string | (() => string | Promise<string>);

/** How the bell proves who the user is on each request. */
export interface RequestAuth {
  /** Sent as `Authorization: Bearer <token>`; when given, no CSRF token is sent. */
  readonly authToken?: AuthToken | undefined;
  /** The page's CSRF token, sent on writes when there is no `authToken` (cookie sessions). */
  readonly csrfToken?: (() => string | undefined) | undefined;
}

/** The header writes carry the page's CSRF token in. */
export const CSRF_HEADER = 'X-CSRF-Token';

/**
 * The headers that authenticate one request: `Authorization: Bearer …` when there is a token, else (on writes
 * only) the CSRF token. @throws {BellError} `unauthenticated` when the token function fails or gives nothing.
 */
export async function authHeaders(auth: RequestAuth, write: boolean): Promise<Record<string, string>> {
  if (auth.authToken !== undefined) {
    let token: string;
    try {
      token = typeof auth.authToken === 'function' ? await auth.authToken() : auth.authToken;
    } catch (cause) {
      throw new BellError('unauthenticated', 'the sign-in token could not be had', { cause });
    }
    if (typeof token !== 'string' || token === '') {
      throw new BellError('unauthenticated', 'the sign-in token is empty');
    }
    return { authorization: `Bearer ${token}` };
  }
  const csrf = write ? auth.csrfToken?.() : undefined;
  return csrf ? { [CSRF_HEADER]: csrf } : {};
}
