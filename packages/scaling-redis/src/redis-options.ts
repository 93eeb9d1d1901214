/** A Redis Cluster node to discover the cluster from. */
export type RedisRootNode = string | { readonly host: string; readonly port: number };

/**
 * Where Redis is: the spec's `scaling.server.*` (and `rate_limiter.redis.*`) keys in camelCase. `url` wins over
 * `host`/`port`; with `clusterMode` the cluster is discovered from `rootNodes` (or from `url`/`host`/`port`).
 */
export interface RedisServerOptions {
  /** `redis[s]://[[username][:password]@][host][:port][/db-number]`. */
  readonly url?: string | undefined;
  /** 127.0.0.1 by default. */
  readonly host?: string | undefined;
  /** 6379 by default. */
  readonly port?: number | undefined;
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  /** The database number (single Redis only: a Redis Cluster has database 0 alone). */
  readonly database?: number | undefined;
  /** Seconds to wait for a connection before giving up on that attempt (5 by default). */
  readonly timeout?: number | undefined;
  /** Talk to a Redis Cluster (sharded pub/sub, slot-aware routing). */
  readonly clusterMode?: boolean | undefined;
  /** Cluster nodes to start discovery from; defaults to `url` or `host`/`port`. */
  readonly rootNodes?: readonly RedisRootNode[] | undefined;
}
