export type {
  AppHistory,
  AuthorizedConnections,
  ClientEventSenders,
  RealtimeApp,
  ResolvedApp,
} from './app.js';
export { type AppStore, createStaticAppStore } from './app-store.js';
export { ApplicationEventEmitter, type ApplicationEvents } from './application-events.js';
export { parseTrustedProxies, type TrustedProxies } from './client-address.js';
export {
  DEBUG_EVENT_KINDS,
  type DebugEvent,
  type DebugEventKind,
  type DebugListener,
  type DebugPort,
  type DebugRecord,
} from './debug/debug-events.js';
export type { PresenceMemberInfo } from './debug/presence-members.js';
export { isRealtimeServerError, RealtimeServerError, type RealtimeServerErrorCode } from './errors.js';
export {
  createMemoryHistory,
  DEFAULT_HISTORY_BYTES_PER_APP,
  type MemoryHistoryOptions,
} from './history/memory-history.js';
export type {
  ChannelHistory,
  HistoryLimits,
  HistoryList,
  HistoryRead,
  HistorySize,
} from './history/types.js';
export type {
  FastHttpHandler,
  FetchHandler,
  HttpConnection,
  RawHttpRequest,
  RawHttpResponse,
} from './http-bridge.js';
export { type LogFields, type Logger, silentLogger } from './logger.js';
export { type HistorySizeSource, ServerMetrics } from './metrics.js';
export {
  type AppChange,
  type AppChanges,
  type ChannelDetails,
  type ChannelSummary,
  createRealtimeServer,
  type PublishRequest,
  type RealtimeServer,
  type RealtimeServerOptions,
  type SlowConsumerPolicy,
} from './server.js';
export { fullBucket, isFull, type TokenBucket, takeToken, tokenWait } from './token-bucket.js';
export { type CLibrary, describeCLibrary } from './transport/c-library.js';
export {
  type HttpBodyWriter,
  type HttpExchange,
  type ResponseHeaders,
  SendStatus,
  type TlsOptions,
  type Transport,
  type TransportFactory,
  type TransportHandlers,
  type TransportName,
  type TransportOptions,
  type TransportPreference,
  type TransportSocket,
  UpgradeRefusal,
  type UpgradeRequest,
} from './transport/types.js';
export { diagnoseNativeUws } from './transport/uws-diagnosis.js';
export {
  loadNativeUws,
  type NativeUws,
  type UwsAttempt,
  type UwsLoad,
} from './transport/uws-loader.js';
export type {
  OtherNodeLine,
  UwsCandidateReport,
  UwsDiagnosis,
  UwsVerdict,
} from './transport/uws-report.js';
