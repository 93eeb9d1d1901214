import type { Logger, ServerMetrics } from '@herald/realtime-server';
// Types only: the package itself is imported when scaling or the redis rate-limit driver is on.
import type {
  RedisChannelHistory,
  RedisClusterAdapter,
  RedisRateLimitStore,
  RedisServerOptions,
  RedisUsageStore,
  RedisWebhookQueue,
} from '@herald/scaling-redis';
import type { ServedApp } from './app-source.js';
import type { RealtimeConfig } from './config-schema.js';
import { scoped } from './logger.js';

type ScalingRedis = typeof import('@herald/scaling-redis');

/** The Redis the cluster's nodes share, from `scaling.*`. */
function scalingRedis(config: RealtimeConfig): RedisServerOptions & { channel: string } {
  const { scaling } = config;
  const server = scaling.server;
  return {
    ...(server.url ? { url: server.url } : { host: server.host, port: server.port }),
    username: server.username,
    password: server.password,
    database: server.database,
    timeout: server.timeout,
    clusterMode: scaling.cluster_mode,
    ...(scaling.nodes
      ? { rootNodes: scaling.nodes.map((node) => (node.includes('://') ? node : `redis://${node}`)) }
      : {}),
    channel: `${scaling.prefix}${scaling.channel}`,
  };
}

/** Loads the Redis package only when it is used: a single node starts without it. */
export async function loadScalingRedis(config: RealtimeConfig): Promise<ScalingRedis | undefined> {
  const { scaling, rate_limiter: limits } = config;
  return scaling.enabled || (limits.enabled && limits.driver === 'redis')
    ? await import('@herald/scaling-redis')
    : undefined;
}

/** The cluster adapter of `scaling.*`, counting into `registry`; none unless scaling is enabled. */
export function clusterAdapter(
  redis: ScalingRedis | undefined,
  config: RealtimeConfig,
  logger: Logger,
  registry: ServerMetrics['registry'],
): RedisClusterAdapter | undefined {
  const { scaling } = config;
  if (!scaling.enabled || !redis) return undefined;
  return redis.createRedisCluster({
    ...scalingRedis(config),
    keyPrefix: scaling.prefix,
    heartbeatMs: scaling.heartbeat_ms,
    ...(scaling.dead_after_ms ? { deadAfterMs: scaling.dead_after_ms } : {}),
    ...(scaling.node_id ? { nodeId: scaling.node_id } : {}),
    routing: scaling.routing,
    unsubscribeDelayMs: scaling.unsubscribe_delay_ms,
    logger: scoped(logger, 'socket.server.redis'),
    registry,
  });
}

/** The REST API's rate-limit store shared by the nodes (`rate_limiter.driver` redis); it connects at once. */
export function sharedRateLimits(
  redis: ScalingRedis | undefined,
  config: RealtimeConfig,
  logger: Logger,
): RedisRateLimitStore | undefined {
  const limits = config.rate_limiter;
  if (!limits.enabled || limits.driver !== 'redis' || !redis) return undefined;
  return redis.redisRateLimitStore({
    ...(limits.redis.url ? { url: limits.redis.url } : { host: limits.redis.host, port: limits.redis.port }),
    password: limits.redis.password,
    database: limits.redis.database,
    clusterMode: limits.redis.cluster_mode,
    keyPrefix: `${config.scaling.prefix}rl:`,
    logger: scoped(logger, 'socket.server.redis'),
  });
}

/**
 * The shared webhook queue of a cluster (Redis streams), so events queued by a node that dies are delivered by
 * another; made only when clustered and some app has webhooks (or apps come from a store, where they may gain some).
 */
export function redisWebhookQueue(
  redis: ScalingRedis | undefined,
  config: RealtimeConfig,
  logger: Logger,
  apps: readonly ServedApp[],
): RedisWebhookQueue | undefined {
  if (!config.scaling.enabled || !redis) return undefined;
  const dynamic = config.app_store.driver !== 'config';
  if (!dynamic && !apps.some((app) => app.webhooks.length > 0)) return undefined;
  return redis.createRedisWebhookQueue({
    ...scalingRedis(config),
    keyPrefix: config.scaling.prefix,
    leaseMs: config.webhooks.queue_lease_ms,
    logger: scoped(logger, 'webhooks'),
  });
}

/**
 * The channel history a cluster shares (Redis Streams), so serials are assigned once for the cluster and any node
 * replays any channel. Made whenever clustered, even before any app has history on: an app may turn it on by a
 * reload or through the app store, and a node must never fall back to serials of its own then. Without scaling the
 * server keeps the in-memory history of a node alone.
 */
export function redisHistory(
  redis: ScalingRedis | undefined,
  config: RealtimeConfig,
  logger: Logger,
): RedisChannelHistory | undefined {
  if (!config.scaling.enabled || !redis) return undefined;
  return redis.createRedisHistory({
    ...scalingRedis(config),
    keyPrefix: config.scaling.prefix,
    maxBytesPerChannel: config.scaling.history_bytes_per_channel,
    sizeCacheMs: config.scaling.history_size_cache_ms,
    logger: scoped(logger, 'socket.server.redis'),
  });
}

/**
 * The usage counters a cluster's consoles share, so that each console charts the whole cluster; made only when
 * clustered with the console on (every node samples its own counters into it, whether or not a console is open).
 */
export function redisUsage(
  redis: ScalingRedis | undefined,
  config: RealtimeConfig,
  node: { readonly logger: Logger; readonly cluster: RedisClusterAdapter | undefined },
): RedisUsageStore | undefined {
  if (!config.console.enabled || !redis || !node.cluster) return undefined;
  return redis.createRedisUsage({
    ...scalingRedis(config),
    keyPrefix: config.scaling.prefix,
    nodeId: node.cluster.nodeId,
    logger: scoped(node.logger, 'socket.server.redis'),
  });
}

/** Asks every node of the cluster to restart, through the Redis in `scaling.*` (`realtime restart_server`). */
export async function requestClusterRestart(config: RealtimeConfig): Promise<number> {
  const { publishRestart } = await import('@herald/scaling-redis');
  return publishRestart(scalingRedis(config));
}
