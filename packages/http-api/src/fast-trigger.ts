import { isOriginAllowed, isSocketId } from '@herald/protocol-core';
import { appLookupOf, eventLimitsOf } from './api-app.js';
import { DEFAULT_MAX_REQUEST_SIZE, type HttpApiOptions, normalizePrefix } from './http-api.js';
import { bearerMatches, verifyQuerySignature } from './request-auth.js';
import { checkEvent } from './trigger-body.js';

/** A request as a server hands it over before any Request object exists. */
export interface RawRestRequest {
  readonly method: string;
  /** The path as received, without the query string. */
  readonly path: string;
  /** The query string without `?`. */
  readonly query: string;
  /** Header values by lower-case name. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

/** The answer of the fast path. */
export interface RawRestResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Answers a request without hono, or returns `undefined` to send it down the full API. Only a well-formed,
 * authorised trigger is answered here; anything else — an error, `info`, a rate limit — takes the full path,
 * which gives the same answer it always does.
 */
export type FastRestHandler = (
  request: RawRestRequest,
) => RawRestResponse | Promise<RawRestResponse> | undefined;

const BEARER = /^Bearer\s+(.+)$/i;
const utf8 = new TextDecoder('utf-8', { fatal: true });
const OK_BODY = '{}';

function isOptionalString(value: unknown): value is string | null | undefined {
  return value === undefined || value === null || typeof value === 'string';
}

/**
 * Creates the fast path of `POST /apps/{id}/events`: the hottest REST call, answered from raw parts with the same
 * checks as the full API. Returns `undefined` when the options need the full path for every call (rate limits);
 * an app lookup that answers with a promise sends that call down the full path.
 *
 * @example
 * const fast = createFastTrigger(options); // the same options as createHttpApi
 * const answer = fast?.({ method: 'POST', path: '/apps/1/events', query: '', headers, body });
 */
export function createFastTrigger(options: HttpApiOptions): FastRestHandler | undefined {
  // A lookup function is fine as long as it answers synchronously (a Map behind it): a promise falls through.
  if (options.rateLimits !== undefined) return undefined;
  const findApp = appLookupOf(options.apps);
  const prefix = normalizePrefix(options.path);
  const maxRequestSize = options.maxRequestSize ?? DEFAULT_MAX_REQUEST_SIZE;
  const { backend, onRequest } = options;
  const head = `${prefix}/apps/`;

  return (request) => {
    const { path } = request;
    if (request.method !== 'POST' || !path.startsWith(head) || !path.endsWith('/events')) return undefined;
    const appId = path.slice(head.length, -'/events'.length);
    if (appId === '' || appId.includes('/')) return undefined;
    const app = findApp(appId);
    if (app === undefined || app instanceof Promise || !app.enabled) return undefined;
    const { body } = request;
    if (body.byteLength > maxRequestSize) return undefined;

    const authorization = request.headers.authorization;
    const bearer = authorization ? BEARER.exec(authorization.trim()) : null;
    if (bearer) {
      if (!bearerMatches(app, bearer[1] as string)) return undefined;
    } else {
      const paths =
        prefix !== '' && path.startsWith(`${prefix}/`) ? [path, path.slice(prefix.length)] : [path];
      if (!verifyQuerySignature(app, { method: 'POST', path: paths, query: request.query, body }).ok)
        return undefined;
    }

    let parsed: unknown;
    try {
      parsed = JSON.parse(utf8.decode(body));
    } catch {
      // The full path answers the 400.
      return undefined;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    const fields = parsed as Record<string, unknown>;
    const { name, data, channels, channel, socket_id: socketId, info } = fields;
    if (typeof name !== 'string' || name === '' || typeof data !== 'string') return undefined;
    if (info !== undefined && info !== null) return undefined;
    if (!isOptionalString(socketId) || (typeof socketId === 'string' && !isSocketId(socketId)))
      return undefined;
    let named: string[];
    if (
      Array.isArray(channels) &&
      channel === undefined &&
      channels.every((entry) => typeof entry === 'string')
    ) {
      named = channels as string[];
    } else if (typeof channel === 'string' && channels === undefined) {
      named = [channel];
    } else {
      return undefined;
    }
    const checked = checkEvent(
      { name, data, channels: named, socket_id: socketId ?? undefined },
      eventLimitsOf(app),
      '',
    );
    if (!checked.ok) return undefined;

    const origin = request.headers.origin;
    const headers: Record<string, string> =
      origin !== undefined && isOriginAllowed(origin, app.allowedOrigins)
        ? {
            'Access-Control-Allow-Origin': origin,
            Vary: 'Origin',
            'Content-Type': 'application/json; charset=utf-8',
          }
        : { 'Content-Type': 'application/json; charset=utf-8' };
    const answer: RawRestResponse = { status: 200, headers, body: OK_BODY };
    const started = onRequest ? performance.now() : 0;
    const report = () =>
      onRequest?.({
        appId: app.id,
        method: 'POST',
        path,
        route: '/apps/:appId/events',
        status: 200,
        requestBytes: body.byteLength,
        responseBytes: OK_BODY.length,
        durationMs: performance.now() - started,
      });
    const published = backend.publish(app.id, {
      channels: checked.value.channels,
      event: checked.value.name,
      data: checked.value.data,
      excludeSocketId: checked.value.socketId,
    });
    if (published instanceof Promise) {
      return published.then(() => {
        report();
        return answer;
      });
    }
    report();
    return answer;
  };
}
