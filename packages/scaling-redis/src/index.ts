export { isScalingRedisError, ScalingRedisError, type ScalingRedisErrorCode } from './errors.js';
export type { RedisHistorySize } from './history/history-size.js';
export {
  createRedisHistory,
  DEFAULT_HISTORY_BYTES_PER_CHANNEL,
  type RedisChannelHistory,
  type RedisHistoryLimits,
  type RedisHistoryList,
  type RedisHistoryOptions,
  type RedisHistoryRead,
} from './history/redis-history.js';
export { type LogFields, type Logger, silentLogger } from './logger.js';
export {
  type RateLimitBudget,
  type RedisRateLimitStore,
  type RedisRateLimitStoreOptions,
  redisRateLimitStore,
} from './rate-limit-store.js';
export {
  type ClusterRouting,
  type ClusterStats,
  createRedisCluster,
  type RedisClusterAdapter,
  type RedisClusterOptions,
  type ScalingMetrics,
} from './redis-cluster.js';
export type { RedisRootNode, RedisServerOptions } from './redis-options.js';
export { type PublishRestartOptions, publishRestart } from './restart.js';
export {
  createRedisUsage,
  type RedisUsageMinute,
  type RedisUsageOptions,
  type RedisUsageSample,
  type RedisUsageStore,
} from './usage-store.js';
export {
  type ClaimedWebhookQueueJob,
  createRedisWebhookQueue,
  type RedisWebhookQueue,
  type RedisWebhookQueueOptions,
  type WebhookQueueJob,
} from './webhook-queue.js';
