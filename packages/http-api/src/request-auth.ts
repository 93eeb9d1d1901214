import {
  acceptedSecrets,
  DefaultLimits,
  fail,
  ok,
  type RawRequestToVerify,
  type RequestAuthError,
  type Result,
  safeEqual,
  verifyRawRequest,
  verifyRequest,
} from '@herald/protocol-core';
import type { ApiApp } from './api-app.js';
import { parseQueryParams } from './internal/query-params.js';

/** A REST request as received, reduced to what authenticating it needs. */
export interface IncomingRequest {
  readonly method: string;
  /** The full request URL, its path not decoded (the signature covers the path as sent). */
  readonly url: URL;
  /** The `Authorization` header, if any. */
  readonly authorization?: string | null | undefined;
  /** The raw body, as `body_md5` was computed over it. */
  readonly body: Uint8Array;
  /** The configured path prefix (`''` for none); a signature over the path without it is also accepted. */
  readonly prefix?: string | undefined;
  /** Unix time in seconds; defaults to now. */
  readonly now?: number | undefined;
}

/** How a request proved it comes from the app's owner. */
export type AuthScheme = 'bearer' | 'signature';

/** Why a request was refused: the signature check's reason, or a bearer token that is not a secret of the app. */
export interface AuthRefusal {
  readonly reason: RequestAuthError['reason'] | 'bad_token';
  /** The full reason, for the server's log only: the client's answer says less (see `publicAuthMessage`). */
  readonly message: string;
}

// What a refused client is told: no more than Pusher's own API says (which auth_key, an expired timestamp), and
// never which part of a well-formed signature was wrong (body_md5, version, a missing parameter): all of those
// are "invalid signature", so the answer does not help forge one.
const PUBLIC_MESSAGES: Readonly<Record<AuthRefusal['reason'], string>> = {
  missing_param: 'Unauthorized: invalid signature',
  unsupported_version: 'Unauthorized: invalid signature',
  body_md5_mismatch: 'Unauthorized: invalid signature',
  bad_signature: 'Unauthorized: invalid signature',
  key_mismatch: 'Unauthorized: unknown auth_key',
  stale_timestamp: `Unauthorized: timestamp expired (not within ${DefaultLimits.requestTimestampGraceSeconds} seconds of server time)`,
  bad_token: 'Unauthorized: invalid token',
};

/** The message a refused request is answered with (the 401 body's `error`). */
export function publicAuthMessage(refusal: AuthRefusal): string {
  return PUBLIC_MESSAGES[refusal.reason];
}

const BEARER = /^Bearer\s+(.+)$/i;

function signedPaths(url: URL, prefix: string): string[] {
  const path = url.pathname;
  if (prefix === '' || !path.startsWith(`${prefix}/`)) return [path];
  return [path, path.slice(prefix.length)];
}

/** Whether a bearer token is the app's secret, or a previous secret still in its grace period. */
export function bearerMatches(app: ApiApp, token: string): boolean {
  let matched = false;
  // Every accepted secret is compared, so the time taken does not say which one matched.
  for (const secret of acceptedSecrets(app)) if (safeEqual(token, secret)) matched = true;
  return matched;
}

/**
 * Checks a request's query signature from the raw query string: straight from it when it is already canonical (as
 * the SDKs send it), else over the decoded parameters. Both give the same answer.
 */
export function verifyQuerySignature(
  app: ApiApp,
  request: RawRequestToVerify,
): Result<true, RequestAuthError> {
  return (
    verifyRawRequest(app, request) ??
    verifyRequest(app, { ...request, query: parseQueryParams(request.query) })
  );
}

/**
 * Authenticates a REST request by `Authorization: Bearer <secret>` (compared in constant time) or, without
 * that header, by Pusher's HMAC query signature over the path with or without the prefix
 * (https://pusher.com/docs/channels/library_auth_reference/rest-api/#authentication).
 *
 * @example
 * authenticateRequest(app, { method: 'GET', url: new URL('http://h/apps/1/channels'), authorization: 'Bearer s', body })
 */
export function authenticateRequest(app: ApiApp, request: IncomingRequest): Result<AuthScheme, string> {
  const checked = checkRequestAuth(app, request);
  return checked.ok ? checked : fail(checked.error.message);
}

/** {@link authenticateRequest} with the reason of a refusal, to answer it without telling too much. */
export function checkRequestAuth(app: ApiApp, request: IncomingRequest): Result<AuthScheme, AuthRefusal> {
  const bearer = request.authorization ? BEARER.exec(request.authorization.trim()) : null;
  if (bearer) {
    return bearerMatches(app, bearer[1] as string)
      ? ok('bearer')
      : fail({ reason: 'bad_token', message: 'Bearer token does not match the app' });
  }
  const verified = verifyQuerySignature(app, {
    method: request.method,
    path: signedPaths(request.url, request.prefix ?? ''),
    query: request.url.search.slice(1),
    body: request.body,
    ...(request.now === undefined ? {} : { now: request.now }),
  });
  return verified.ok ? ok('signature') : fail(verified.error);
}
