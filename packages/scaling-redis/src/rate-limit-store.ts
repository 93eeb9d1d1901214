import { type RateLimiterAbstract, RateLimiterRedis } from 'rate-limiter-flexible';
import { createNodeRedis } from './internal/connection.js';
import { type Logger, silentLogger } from './logger.js';
import type { RedisServerOptions } from './redis-options.js';

// The shape of @herald/http-api's RateLimitStore, declared here because adapters never import each other.
/** What one limiter allows: `points` per `duration` seconds for each key, keys namespaced by `keyPrefix`. */
export interface RateLimitBudget {
  readonly keyPrefix: string;
  readonly points: number;
  readonly duration: number;
}

/** A rate-limit store whose counters live in Redis, shared by every node; close it on shutdown. */
export interface RedisRateLimitStore {
  (budget: RateLimitBudget): RateLimiterAbstract;
  /** Resolves once the connection is up (limiters reject while it is not). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** Options of {@link redisRateLimitStore}: the spec's `rate_limiter.redis.*` keys, in camelCase. */
export interface RedisRateLimitStoreOptions extends RedisServerOptions {
  /** Prepended to every limiter's `keyPrefix` ('herald:rl:' by default). */
  readonly keyPrefix?: string | undefined;
  readonly logger?: Logger | undefined;
}

/**
 * Makes rate-limiter-flexible limiters that count in Redis, so that nodes share one budget per key
 * (the `redis` driver of `rate_limiter`). Works against one Redis or, with `clusterMode`, a Redis Cluster.
 * @throws {ScalingRedisError} `invalid_options` for options that cannot work.
 * @example
 * ```ts
 * const store = redisRateLimitStore({ host: '127.0.0.1', port: 6379 });
 * const api = createHttpApi({ backend, rateLimits: { store } });
 * ```
 */
export function redisRateLimitStore(options: RedisRateLimitStoreOptions = {}): RedisRateLimitStore {
  const logger = options.logger ?? silentLogger;
  const prefix = options.keyPrefix ?? 'herald:rl:';
  const made = createNodeRedis(options);
  const client = made.kind === 'cluster' ? made.cluster : made.client;
  client.on('error', (error: Error) => logger.warn('rate-limit redis error', { error: error.message }));
  const connected = client.connect().then(
    () => undefined,
    (error: unknown) => {
      logger.error('rate-limit redis could not connect', { error: String(error) });
      throw error;
    },
  );
  // Observed here so that a failed first connect is not an unhandled rejection; ready() still reports it.
  connected.catch(() => {});
  const store = (budget: RateLimitBudget): RateLimiterAbstract =>
    new RateLimiterRedis({
      storeClient: client,
      useRedisPackage: true,
      keyPrefix: `${prefix}${budget.keyPrefix}`,
      points: budget.points,
      duration: budget.duration,
    });
  return Object.assign(store, {
    ready: () => connected,
    async close() {
      await client.close().catch(() => client.destroy());
    },
  });
}
