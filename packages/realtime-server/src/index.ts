export {
  type AppFallbacks,
  type ClientEventSenders,
  type RealtimeApp,
  type ResolvedApp,
  resolveApp,
} from './app.js';
export { ApplicationEventEmitter, type ApplicationEvents } from './application-events.js';
export { isRealtimeServerError, RealtimeServerError, type RealtimeServerErrorCode } from './errors.js';
export {
  type FastHttpHandler,
  type FetchHandler,
  type HttpBridgeOptions,
  handleWithFetch,
  type RawHttpRequest,
  type RawHttpResponse,
} from './http-bridge.js';
export { type LogFields, type Logger, silentLogger } from './logger.js';
export { ServerMetrics } from './metrics.js';
export { type ConnectionLimits, type LimitHit, SocketRateLimiter } from './rate-limits.js';
export {
  type ChannelDetails,
  type ChannelSummary,
  createRealtimeServer,
  type PublishRequest,
  type RealtimeServer,
  type RealtimeServerOptions,
  type TlsOptions,
} from './server.js';
export { type LoadedUws, loadUws, SLOW_UWS_WARNING } from './uws.js';
