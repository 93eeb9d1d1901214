export type { ApiApp, AppLookup } from './api-app.js';
export type {
  Awaitable,
  CachedEvent,
  ChannelQuery,
  ChannelState,
  ChannelSummary,
  HistoryPage,
  HistoryQuery,
  MetricsText,
  PublishedEvent,
  RealtimeBackend,
} from './backend.js';
export { HttpApiError, type HttpApiErrorCode, HttpApiErrorStatus, isHttpApiError } from './errors.js';
export {
  createFastTrigger,
  type FastRestHandler,
  type RawRestRequest,
  type RawRestResponse,
} from './fast-trigger.js';
export { createHttpApi, type HttpApiEnv, type HttpApiOptions, type HttpApiRequest } from './http-api.js';
export { type LogFields, type Logger, silentLogger } from './logger.js';
export {
  createMetricsHandler,
  hasMetricsToken,
  type MetricsAccess,
  type MetricsAnswer,
  type MetricsHandler,
} from './metrics-access.js';
export {
  memoryRateLimitStore,
  type RateLimitBudget,
  type RateLimitOptions,
  type RateLimitStore,
} from './rate-limits.js';
export {
  type AuthRefusal,
  type AuthScheme,
  authenticateRequest,
  checkRequestAuth,
  type IncomingRequest,
  publicAuthMessage,
} from './request-auth.js';
export { DEFAULT_HISTORY_LIMIT, MAX_HISTORY_LIMIT } from './routes/history.js';
