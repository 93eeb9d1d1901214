import { safeEqual } from '@herald/protocol-core';
import type { MetricsText, RealtimeBackend } from './backend.js';

/** Who may read `/metrics`. */
export interface MetricsAccess {
  /**
   * A token every scrape must send as `Authorization: Bearer <token>` (compared in constant time); without one,
   * `/metrics` is open, as before.
   */
  readonly token?: string | undefined;
  /** Whether this API answers `/metrics` at all (false when it is served on a port of its own). Default true. */
  readonly served?: boolean | undefined;
}

/** The answer to a metrics scrape, in raw parts so a plain `node:http` server can send it too. */
export interface MetricsAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Answers a scrape; `authorization` is the request's `Authorization` header. */
export type MetricsHandler = (authorization: string | null | undefined) => Promise<MetricsAnswer>;

const BEARER = /^Bearer\s+(.+)$/i;

// Says no more than that a token is needed: which part was wrong is never told.
const UNAUTHORIZED: MetricsAnswer = {
  status: 401,
  headers: {
    'Content-Type': 'application/json; charset=utf-8',
    'WWW-Authenticate': 'Bearer realm="metrics"',
  },
  body: JSON.stringify({ error: 'Unauthorized' }),
};

/** Whether a request's `Authorization` header carries the token. */
export function hasMetricsToken(authorization: string | null | undefined, token: string): boolean {
  const bearer = authorization ? BEARER.exec(authorization.trim()) : null;
  return bearer !== null && safeEqual(bearer[1] as string, token);
}

/**
 * Creates the `/metrics` answer: the backend's Prometheus text, or a JSON 401 when a token is set and the request
 * does not carry it.
 *
 * @example
 * const scrape = createMetricsHandler(backend, { token: process.env.METRICS_TOKEN });
 * const answer = await scrape(request.headers.authorization);
 */
export function createMetricsHandler(backend: RealtimeBackend, access: MetricsAccess = {}): MetricsHandler {
  const { token } = access;
  return async (authorization) => {
    if (token !== undefined && !hasMetricsToken(authorization, token)) return UNAUTHORIZED;
    const metrics: MetricsText = await backend.metrics();
    return { status: 200, headers: { 'Content-Type': metrics.contentType }, body: metrics.body };
  };
}
