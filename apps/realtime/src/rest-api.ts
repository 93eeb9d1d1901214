import {
  createFastTrigger,
  createHttpApi,
  type HttpApiOptions,
  type RateLimitStore,
  type RealtimeBackend,
} from '@herald/http-api';
import type { FastHttpHandler, FetchHandler, Logger, RealtimeServer } from '@herald/realtime-server';
import type { RealtimeConfig, ServerConfig } from './config-schema.js';
import { scoped } from './logger.js';
import type { ServedApps } from './served-apps.js';

/** The real-time server seen through the HTTP API's port. */
export function backendOf(server: RealtimeServer): RealtimeBackend {
  return {
    publish: (appId, event) => server.publish(appId, event),
    channels: (appId, query) => server.channels(appId, query.prefix),
    channel: (appId, name) => server.channel(appId, name),
    presenceUsers: (appId, name) => server.presenceUsers(appId, name),
    history: (appId, name, query) => server.history(appId, name, query),
    terminateUser: (appId, userId) => {
      server.terminateUser(appId, userId);
    },
    // Every package registers its metrics on the server's registry: one render covers them all.
    metrics: () => server.metrics.render(),
    ready: () => !server.draining,
  };
}

/** The REST API the server hands its HTTP requests to; rebuilt in place by a reload. */
export interface RestApi {
  readonly fetch: FetchHandler;
  readonly fast: FastHttpHandler;
  /** Builds the API again with a re-read config's rate limits (the apps are looked up on every request). */
  rebuild(config: RealtimeConfig): void;
}

export function createRestApi(options: {
  readonly server: RealtimeServer;
  readonly apps: ServedApps;
  readonly settings: ServerConfig;
  readonly logger: Logger;
  /** Shared by the nodes (`rate_limiter.driver` redis); in memory without it. */
  readonly sharedLimits?: RateLimitStore | undefined;
  readonly config: RealtimeConfig;
}): RestApi {
  const { apps, settings, sharedLimits } = options;
  const backend = backendOf(options.server);
  const logger = scoped(options.logger, 'http.api');
  const build = (config: RealtimeConfig) => {
    const limits = config.rate_limiter;
    const apiOptions: HttpApiOptions = {
      apps: (id) => apps.apiApp(id),
      backend,
      path: settings.path,
      maxRequestSize: settings.max_request_size,
      logger,
      // With a port of its own, /metrics is not on the main port; a token guards it wherever it is.
      metrics: { token: config.metrics.auth_token, served: config.metrics.port === undefined },
      ...(limits.enabled
        ? {
            rateLimits: {
              maxBackendEventsPerSecond: limits.default_limits.max_backend_events_per_second,
              maxReadRequestsPerSecond: limits.default_limits.max_read_requests_per_second,
              ...(sharedLimits ? { store: sharedLimits } : {}),
            },
          }
        : {}),
    };
    // The hottest call, a well-formed trigger, is answered from raw parts; everything else goes through hono.
    return { app: createHttpApi(apiOptions), fast: createFastTrigger(apiOptions) };
  };
  let api = build(options.config);
  return {
    fetch: (request) => api.app.fetch(request),
    fast: (request) => api.fast?.(request),
    rebuild(config) {
      api = build(config);
    },
  };
}
