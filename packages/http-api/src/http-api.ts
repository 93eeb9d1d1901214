import { Hono } from 'hono';
import { type ApiApp, type AppLookup, appLookupOf } from './api-app.js';
import type { HttpApiEnv } from './api-env.js';
import type { RealtimeBackend } from './backend.js';
import { type Logger, silentLogger } from './logger.js';
import type { MetricsAccess } from './metrics-access.js';
import { resolveApp } from './middleware/app.js';
import { authenticate } from './middleware/auth.js';
import { applyCors } from './middleware/cors.js';
import { answerError, answerNotFound } from './middleware/errors.js';
import { createRateLimitTaker } from './middleware/rate-limit.js';
import { type HttpApiRequest, reportRequests } from './middleware/request-report.js';
import { createAppRateLimits, type RateLimitOptions } from './rate-limits.js';
import { listChannels, showChannel } from './routes/channels.js';
import { triggerBatch, triggerEvent } from './routes/events.js';
import { answerHealthy, answerMetrics, answerReady } from './routes/health.js';
import { listHistory } from './routes/history.js';
import { listPresenceUsers } from './routes/presence-users.js';
import { terminateUserConnections } from './routes/users.js';

export type { HttpApiEnv } from './api-env.js';
export type { HttpApiRequest } from './middleware/request-report.js';

/** Options of {@link createHttpApi}. */
export interface HttpApiOptions {
  /** The apps served, as a list or a lookup by id. */
  readonly apps: readonly ApiApp[] | AppLookup;
  /** The real-time server (or cluster) the API publishes to and reads from. */
  readonly backend: RealtimeBackend;
  /** A prefix every route is served under, such as `/realtime` (`''` by default). */
  readonly path?: string | undefined;
  /** Largest request body in bytes (10000 by default); larger bodies answer 413 and are not read further. */
  readonly maxRequestSize?: number | undefined;
  /** Per-app rate limits; off when not given. */
  readonly rateLimits?: RateLimitOptions | undefined;
  /** Receives structured logs; silent by default. */
  readonly logger?: Logger | undefined;
  /** Who may read `/metrics`: a bearer token, or not served here at all (a port of its own). Open by default. */
  readonly metrics?: MetricsAccess | undefined;
  /** Called after every request is answered (errors and 404s included). */
  readonly onRequest?: ((request: HttpApiRequest) => void) | undefined;
}

/** Largest request body in bytes when `maxRequestSize` is not given. */
export const DEFAULT_MAX_REQUEST_SIZE = 10_000;

/** The route prefix in its canonical form: '' or `/name` without a trailing slash. */
export function normalizePrefix(path: string | undefined): string {
  if (path === undefined || path === '' || path === '/') return '';
  const withSlash = path.startsWith('/') ? path : `/${path}`;
  return withSlash.endsWith('/') ? withSlash.slice(0, -1) : withSlash;
}

/**
 * Creates the HTTP API: Pusher's REST endpoints under `/apps/{id}`, `/up`, `/pusher/health` and `/metrics`,
 * every route under the `path` prefix, with auth, CORS, request limits and optional rate limits
 * (https://pusher.com/docs/channels/library_auth_reference/rest-api/).
 *
 * @example
 * const api = createHttpApi({ apps: [app], backend });
 * const response = await api.fetch(request);
 */
export function createHttpApi(options: HttpApiOptions): Hono<HttpApiEnv> {
  const { backend } = options;
  const prefix = normalizePrefix(options.path);
  const logger = options.logger ?? silentLogger;
  const rateLimits =
    options.rateLimits === undefined ? undefined : createAppRateLimits(options.rateLimits, logger);
  const takeRateLimit = createRateLimitTaker(rateLimits, logger);
  const maxRequestSize = options.maxRequestSize ?? DEFAULT_MAX_REQUEST_SIZE;

  const root = new Hono<HttpApiEnv>();
  root.use('*', reportRequests(options.onRequest, logger));
  root.onError(answerError(logger));
  root.notFound(answerNotFound);

  const api = new Hono<HttpApiEnv>();
  api.get('/up', answerHealthy);
  api.get('/pusher/health', answerHealthy);
  api.get('/ready', answerReady(backend));
  if (options.metrics?.served !== false) api.get('/metrics', answerMetrics(backend, options.metrics));

  // In this order: the app is found (404), CORS answers preflights before auth, then body, auth and read limits.
  api.use('/apps/:appId/*', resolveApp(appLookupOf(options.apps)));
  api.use('/apps/:appId/*', applyCors);
  api.use('/apps/:appId/*', authenticate({ maxRequestSize, prefix, logger, takeRateLimit }));

  api.post('/apps/:appId/events', triggerEvent({ backend, logger, takeRateLimit }));
  api.post('/apps/:appId/batch_events', triggerBatch({ backend, logger, takeRateLimit }));
  api.get('/apps/:appId/channels', listChannels(backend));
  api.get('/apps/:appId/channels/:channelName', showChannel(backend));
  api.get('/apps/:appId/channels/:channelName/users', listPresenceUsers(backend));
  api.get('/apps/:appId/channels/:channelName/history', listHistory(backend));
  api.post('/apps/:appId/users/:userId/terminate_connections', terminateUserConnections(backend, logger));

  root.route(prefix === '' ? '/' : prefix, api);
  return root;
}
