import { describeChannel, isOriginAllowed, validateChannelName } from '@herald/protocol-core';
import { type Context, Hono } from 'hono';
import { routePath } from 'hono/route';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { type ApiApp, type AppLookup, appLookupOf, eventLimitsOf } from './api-app.js';
import type { RealtimeBackend } from './backend.js';
import { type ChannelCounts, countsOf, type InfoAttribute, parseInfo } from './channel-info.js';
import { HttpApiError } from './errors.js';
import { createTextResponse } from './internal/light-response.js';
import { readBodyWithin } from './internal/read-body.js';
import { type Logger, silentLogger } from './logger.js';
import {
  type AppRateLimits,
  createAppRateLimits,
  type RateLimitKind,
  type RateLimitOptions,
  rateLimitHeaders,
} from './rate-limits.js';
import { authenticateRequest } from './request-auth.js';
import { parseBatchBody, parseTriggerBody, type TriggeredEvent } from './trigger-body.js';
import type { ValidationIssue } from './validation.js';

/** What the HTTP API reports about each request it answered, for application events and HTTP metrics. */
export interface HttpApiRequest {
  /** The app the request was for, when it named a known app. */
  readonly appId?: string | undefined;
  readonly method: string;
  /** The request path as received, prefix included. */
  readonly path: string;
  /** The matched route pattern, such as `/apps/:appId/events` (low cardinality, for metric labels). */
  readonly route: string;
  readonly status: number;
  /** Bytes of request body read. */
  readonly requestBytes: number;
  /** Bytes of response body, when known. */
  readonly responseBytes?: number | undefined;
  readonly durationMs: number;
}

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
  /** Called after every request is answered (errors and 404s included). */
  readonly onRequest?: ((request: HttpApiRequest) => void) | undefined;
}

/** The variables the API's handlers share on the hono context. */
export interface HttpApiEnv {
  Variables: {
    app: ApiApp;
    body: Uint8Array;
    /** Headers to add to the response, such as the rate-limit ones. */
    responseHeaders: Readonly<Record<string, string>>;
  };
}

/** Largest request body in bytes when `maxRequestSize` is not given. */
export const DEFAULT_MAX_REQUEST_SIZE = 10_000;
const HEALTHY = { health: 'OK' } as const;
const READY = { ready: true } as const;
const NOT_READY = { ready: false, reason: 'draining' } as const;
const CHANNELS_INFO: readonly InfoAttribute[] = ['user_count', 'subscription_count'];
const CHANNEL_INFO: readonly InfoAttribute[] = ['user_count', 'subscription_count', 'cache'];
const PRESENCE_PREFIX = 'presence-';

/** The route prefix in its canonical form: '' or `/name` without a trailing slash. */
export function normalizePrefix(path: string | undefined): string {
  if (path === undefined || path === '' || path === '/') return '';
  const withSlash = path.startsWith('/') ? path : `/${path}`;
  return withSlash.endsWith('/') ? withSlash.slice(0, -1) : withSlash;
}

function sendJson(
  c: Context,
  body: unknown,
  status: ContentfulStatusCode = 200,
  extra: Readonly<Record<string, string>> = {},
): Response {
  const text = JSON.stringify(body);
  const headers = new Headers({
    ...(c.get('responseHeaders') as Record<string, string> | undefined),
    ...extra,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
  });
  // A light response: the REST path is hot, and undici's Response would stream this short string.
  return createTextResponse(text, status, headers);
}

function refuse(issue: ValidationIssue): HttpApiError {
  return new HttpApiError(
    issue.kind === 'payload_too_large' ? 'payload_too_large' : 'invalid_body',
    issue.message,
    {
      field: issue.field,
    },
  );
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function parseJsonBody(body: Uint8Array): unknown {
  try {
    return JSON.parse(utf8.decode(body));
  } catch (cause) {
    throw new HttpApiError('invalid_body', 'body: must be a JSON object', { field: 'body', cause });
  }
}

function checkedChannelName(name: string, app: ApiApp): string {
  const checked = validateChannelName(name, eventLimitsOf(app).maxChannelNameLength);
  if (!checked.ok) {
    throw new HttpApiError('invalid_body', `channel_name: ${checked.error.message}`, {
      field: 'channel_name',
    });
  }
  return checked.value;
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
  const findApp = appLookupOf(options.apps);
  const { backend, onRequest } = options;
  const prefix = normalizePrefix(options.path);
  const maxRequestSize = options.maxRequestSize ?? DEFAULT_MAX_REQUEST_SIZE;
  const logger = options.logger ?? silentLogger;
  const rateLimits: AppRateLimits | undefined =
    options.rateLimits === undefined ? undefined : createAppRateLimits(options.rateLimits, logger);

  async function takeRateLimit(c: Context<HttpApiEnv>, kind: RateLimitKind, points: number): Promise<void> {
    if (rateLimits === undefined) return;
    const app = c.get('app');
    const outcome = await rateLimits.take(app, kind, points);
    if (outcome === undefined) return;
    const headers = rateLimitHeaders(outcome);
    if (!outcome.allowed) {
      logger.info('rate limit reached', { appId: app.id, kind, limit: outcome.limit });
      const what = kind === 'backend_events' ? 'events' : 'read requests';
      throw new HttpApiError('rate_limited', `Too many ${what}: the limit is ${outcome.limit} per second`, {
        headers,
      });
    }
    c.set('responseHeaders', { ...c.get('responseHeaders'), ...headers });
  }

  async function publish(app: ApiApp, event: TriggeredEvent): Promise<void> {
    await backend.publish(app.id, {
      channels: event.channels,
      event: event.name,
      data: event.data,
      excludeSocketId: event.socketId,
    });
    logger.debug('event published', { appId: app.id, event: event.name, channels: event.channels.length });
  }

  async function countsFor(
    app: ApiApp,
    channel: string,
    info: ReadonlySet<InfoAttribute>,
  ): Promise<ChannelCounts> {
    return countsOf(channel, await backend.channel(app.id, channel), info);
  }

  const root = new Hono<HttpApiEnv>();
  const api = new Hono<HttpApiEnv>();

  root.use('*', async (c, next) => {
    if (onRequest === undefined) return next();
    const started = performance.now();
    await next();
    const length = c.res.headers.get('content-length');
    const report: HttpApiRequest = {
      appId: c.get('app')?.id,
      method: c.req.method,
      path: c.req.path,
      route: routePath(c, -1),
      status: c.res.status,
      requestBytes: c.get('body')?.byteLength ?? 0,
      responseBytes: length === null ? undefined : Number(length),
      durationMs: performance.now() - started,
    };
    try {
      onRequest(report);
    } catch (error) {
      // A failing observer must not turn an answered request into an error.
      logger.warn('onRequest callback failed', { error, path: report.path });
    }
  });

  root.onError((error, c) => {
    if (error instanceof HttpApiError) {
      const body =
        error.field === undefined ? { error: error.message } : { error: error.message, field: error.field };
      return sendJson(c, body, error.status, error.headers);
    }
    logger.error('request failed', {
      error,
      method: c.req.method,
      path: c.req.path,
      appId: c.get('app')?.id,
    });
    return sendJson(c, { error: 'Internal server error' }, 500);
  });

  root.notFound((c) => sendJson(c, { error: `Not found: ${c.req.method} ${c.req.path}` }, 404));

  api.get('/up', (c) => sendJson(c, HEALTHY));
  api.get('/pusher/health', (c) => sendJson(c, HEALTHY));
  // Readiness, for load balancers and Kubernetes: 503 from the moment the server starts draining, while /up (the
  // liveness check) stays 200 until the process exits.
  api.get('/ready', (c) => (backend.ready?.() === false ? sendJson(c, NOT_READY, 503) : sendJson(c, READY)));
  api.get('/metrics', async (c) => {
    const metrics = await backend.metrics();
    return c.body(metrics.body, 200, { 'Content-Type': metrics.contentType });
  });

  api.use('/apps/:appId/*', async (c, next) => {
    const appId = c.req.param('appId');
    const app = await findApp(appId);
    if (app === undefined) throw new HttpApiError('app_not_found', `Unknown app ${appId}`);
    c.set('app', app);
    await next();
  });

  // CORS per the app's allowed origins. Headers go into the context for sendJson rather than onto `c.res`:
  // touching `c.res` before the handler answers makes hono rebuild the response, a cost on every call.
  api.use('/apps/:appId/*', async (c, next) => {
    const origin = c.req.header('origin');
    const allowed = origin !== undefined && isOriginAllowed(origin, c.get('app').allowedOrigins);
    if (c.req.method === 'OPTIONS') {
      const headers = new Headers({ Vary: 'Origin' });
      if (allowed) {
        headers.set('Access-Control-Allow-Origin', origin);
        headers.set('Access-Control-Allow-Methods', 'GET,POST,OPTIONS');
        headers.set('Access-Control-Max-Age', '86400');
        const requested = c.req.header('access-control-request-headers');
        if (requested) {
          headers.set('Access-Control-Allow-Headers', requested);
          headers.append('Vary', 'Access-Control-Request-Headers');
        }
      }
      return new Response(null, { status: 204, headers });
    }
    if (allowed) c.set('responseHeaders', { 'Access-Control-Allow-Origin': origin, Vary: 'Origin' });
    return next();
  });

  api.use('/apps/:appId/*', async (c, next) => {
    const app = c.get('app');
    const body = await readBodyWithin(c.req.raw, maxRequestSize);
    if (!body.ok) {
      throw new HttpApiError('payload_too_large', `Request body is larger than ${maxRequestSize} bytes`);
    }
    c.set('body', body.value);
    const auth = authenticateRequest(app, {
      method: c.req.method,
      url: new URL(c.req.url),
      authorization: c.req.header('authorization'),
      body: body.value,
      prefix,
    });
    if (!auth.ok) {
      logger.info('request refused: bad auth', { appId: app.id, reason: auth.error });
      throw new HttpApiError('unauthorized', `Unauthorized: ${auth.error}`);
    }
    if (!app.enabled) throw new HttpApiError('app_disabled', `App ${app.id} is disabled`);
    if (c.req.method === 'GET') await takeRateLimit(c, 'read_requests', 1);
    await next();
  });

  api.post('/apps/:appId/events', async (c) => {
    const app = c.get('app');
    const parsed = parseTriggerBody(parseJsonBody(c.get('body')), eventLimitsOf(app));
    if (!parsed.ok) throw refuse(parsed.error);
    const event = parsed.value;
    await takeRateLimit(c, 'backend_events', 1);
    await publish(app, event);
    if (event.info.size === 0) return sendJson(c, {});
    const channels: Record<string, ChannelCounts> = {};
    for (const channel of event.channels) channels[channel] = await countsFor(app, channel, event.info);
    return sendJson(c, { channels });
  });

  api.post('/apps/:appId/batch_events', async (c) => {
    const app = c.get('app');
    const parsed = parseBatchBody(parseJsonBody(c.get('body')), eventLimitsOf(app));
    if (!parsed.ok) throw refuse(parsed.error);
    const events = parsed.value;
    await takeRateLimit(c, 'backend_events', events.length);
    // In order, so subscribers of one channel see the batch's events in the order they were given.
    for (const event of events) await publish(app, event);
    if (events.every((event) => event.info.size === 0)) return sendJson(c, {});
    const batch: ChannelCounts[] = [];
    for (const event of events) {
      const [channel] = event.channels;
      batch.push(
        event.info.size === 0 || channel === undefined ? {} : await countsFor(app, channel, event.info),
      );
    }
    return sendJson(c, { batch });
  });

  api.get('/apps/:appId/channels', async (c) => {
    const app = c.get('app');
    const prefixFilter = c.req.query('filter_by_prefix');
    const info = parseInfo(c.req.query('info'), CHANNELS_INFO);
    if (!info.ok) throw refuse(info.error);
    if (info.value.has('user_count') && !prefixFilter?.startsWith(PRESENCE_PREFIX)) {
      throw new HttpApiError('invalid_body', 'info: user_count needs filter_by_prefix=presence-', {
        field: 'info',
      });
    }
    const occupied = await backend.channels(app.id, { prefix: prefixFilter });
    const channels: Record<string, ChannelCounts> = {};
    for (const channel of occupied) channels[channel.name] = countsOf(channel.name, channel, info.value);
    return sendJson(c, { channels });
  });

  api.get('/apps/:appId/channels/:channelName', async (c) => {
    const app = c.get('app');
    const name = checkedChannelName(c.req.param('channelName'), app);
    const info = parseInfo(c.req.query('info'), CHANNEL_INFO);
    if (!info.ok) throw refuse(info.error);
    if (info.value.has('user_count') && !describeChannel(name).presence) {
      throw new HttpApiError('invalid_body', 'info: user_count is only available for presence channels', {
        field: 'info',
      });
    }
    const state = await backend.channel(app.id, name);
    const cache =
      info.value.has('cache') && state.cache ? { data: state.cache.data, ttl: state.cache.ttl } : undefined;
    return sendJson(c, {
      occupied: state.occupied,
      ...countsOf(name, state, info.value),
      ...(cache ? { cache } : {}),
    });
  });

  api.get('/apps/:appId/channels/:channelName/users', async (c) => {
    const app = c.get('app');
    const name = checkedChannelName(c.req.param('channelName'), app);
    if (!describeChannel(name).presence) {
      throw new HttpApiError('invalid_body', 'channel_name: users are only listed for presence channels', {
        field: 'channel_name',
      });
    }
    const users = await backend.presenceUsers(app.id, name);
    return sendJson(c, { users: users.map((id) => ({ id })) });
  });

  api.post('/apps/:appId/users/:userId/terminate_connections', async (c) => {
    const app = c.get('app');
    const userId = c.req.param('userId');
    await backend.terminateUser(app.id, userId);
    logger.info('user connections terminated', { appId: app.id, userId });
    return sendJson(c, {});
  });

  root.route(prefix === '' ? '/' : prefix, api);
  return root;
}
