import { parseTrustedProxies } from '@herald/realtime-server';
import { webhookBatchingSchema, webhookListSchema, webhookSettingsSchema } from '@herald/webhooks';
import { z } from 'zod';
import { consoleSchema } from './console/config.js';

// The configuration file's shape, with the spec's key names (snake_case) and defaults. Every problem is reported
// with its key path by `formatIssues`.

const seconds = z.number().positive();

const tlsSchema = z
  .object({
    local_cert: z.string().min(1).optional(),
    local_pk: z.string().min(1).optional(),
    passphrase: z.string().optional(),
    verify_peer: z.boolean().default(false),
  })
  .strict()
  .refine((tls) => (tls.local_cert === undefined) === (tls.local_pk === undefined), {
    message: 'local_cert and local_pk must be set together',
  });

export const serverSchema = z
  .object({
    host: z.string().min(1).default('0.0.0.0'),
    port: z.number().int().min(0).max(65535).default(8080),
    path: z
      .string()
      .regex(/^(\/[A-Za-z0-9._~-]+)*\/?$/, 'must be empty or a path such as /realtime')
      .default(''),
    /** The public host name printed in URLs (the bind address when absent). */
    hostname: z.string().min(1).optional(),
    protocol_version: z.literal('7').default('7'),
    options: z
      .object({ tls: tlsSchema.prefault({}) })
      .strict()
      .prefault({}),
    max_request_size: z.number().int().positive().default(10_000),
    ping_interval: seconds.default(30),
    activity_timeout: seconds.default(120),
    /**
     * Seconds over which a stopping server (SIGTERM, SIGINT) closes its sockets with 4200, in small batches, after
     * `/ready` turned 503; 0 closes them all at once.
     */
    shutdown_grace_period: z.number().min(0).default(5),
    /**
     * Processes sharing the port (SO_REUSEPORT, or node:cluster's distribution), each a cluster node: more than
     * one needs `scaling.enabled`.
     */
    workers: z.number().int().min(1).max(256).default(1),
    /** Open WebSockets one client address may hold on this node; over it the upgrade gets 429. 0 is off. */
    max_connections_per_ip: z.number().int().min(0).default(0),
    /** Upgrades one client address may make per second (a token bucket, one second's burst). 0 is off. */
    max_upgrades_per_ip_per_second: z.number().min(0).default(0),
    /** Proxies (addresses or CIDR ranges) whose X-Forwarded-For names the client address. */
    trusted_proxies: z
      .array(z.string())
      .default([])
      .superRefine((entries, ctx) => {
        const parsed = parseTrustedProxies(entries);
        if (!parsed.ok)
          ctx.addIssue({ code: 'custom', path: [parsed.error.index], message: parsed.error.message });
      }),
    /** Unsent bytes one socket may have before `slow_consumer` applies (1 MiB). */
    max_buffered_bytes_per_socket: z
      .number()
      .int()
      .min(16_384)
      .default(1024 * 1024),
    /** `close`: a socket over the limit is closed with 4100; `drop`: frames to it are dropped until it catches up. */
    slow_consumer: z.enum(['close', 'drop'], { error: 'must be "close" or "drop"' }).default('close'),
  })
  .strict();

/**
 * Channel history (`applications[].history`): per-channel serials and replay of missed events to clients with
 * `@herald/recovery`. Alone, kept in memory, bounded per channel by these keys and per app by a byte cap.
 */
export const historySchema = z
  .object({
    enabled: z.boolean().default(false),
    max_events_per_channel: z.number().int().positive().max(100_000).default(100),
    max_age_seconds: z.number().positive().max(86_400).default(300),
  })
  .strict();

/**
 * Authorised connections (`applications[].authorized_connections`): a socket that neither signs in nor subscribes to
 * a private or presence channel within `timeout_seconds` of `pusher:connection_established` is closed with 4009.
 */
export const authorizedConnectionsSchema = z
  .object({
    enabled: z.boolean().default(false),
    timeout_seconds: z.number().positive().max(3600).default(30),
  })
  .strict();

export const applicationSchema = z
  .object({
    id: z.string().min(1),
    key: z.string().min(1),
    secret: z.string().min(1),
    name: z.string().optional(),
    max_connections: z.number().int().positive().default(100),
    enable_client_messages: z.boolean().default(true),
    accept_client_events_from: z.enum(['all', 'members', 'none']).optional(),
    enable_statistics: z.boolean().default(true),
    enable_debug: z.boolean().default(false),
    allowed_origins: z.array(z.string().min(1)).min(1).default(['*']),
    ping_interval: seconds.default(60),
    activity_timeout: seconds.default(30),
    max_message_size: z.number().int().positive().default(10_000),
    /**
     * Send `pusher_internal:subscription_count` to subscribers of non-presence channels when the (cluster-wide)
     * count changes, at most once per channel every `subscription_count_interval_ms`.
     */
    enable_subscription_count: z.boolean().default(false),
    subscription_count_interval_ms: z.number().int().min(50).default(500),
    /** Pusher's webhooks for this app (soketi's shape): url, event_types, filter, headers. */
    webhooks: webhookListSchema.default([]),
    /** This app's batching of webhook events, over `webhooks.batching`. */
    webhook_batching: webhookBatchingSchema.optional(),
    max_connection_messages_per_second: z.number().int().positive().optional(),
    connection_rate_limit_terminate: z.boolean().optional(),
    enabled: z.boolean().default(true),
    max_presence_members_per_channel: z.number().int().positive().default(100),
    max_presence_member_size_in_kb: z.number().positive().default(2),
    max_event_payload_in_kb: z.number().positive().default(10),
    max_event_batch_size: z.number().int().positive().default(10),
    max_event_channels_at_once: z.number().int().positive().default(100),
    max_event_name_length: z.number().int().positive().default(200),
    max_channel_name_length: z.number().int().positive().default(164),
    max_backend_events_per_second: z.number().positive().optional(),
    max_frontend_events_per_second: z.number().positive().optional(),
    max_read_requests_per_second: z.number().positive().optional(),
    history: historySchema.optional(),
    authorized_connections: authorizedConnectionsSchema.optional(),
  })
  .strict();

const redisServerSchema = z
  .object({
    url: z.string().min(1).optional(),
    host: z.string().min(1).default('127.0.0.1'),
    port: z.number().int().min(1).max(65535).default(6379),
    username: z.string().optional(),
    password: z.string().optional(),
    database: z.number().int().min(0).default(0),
    timeout: z.number().positive().default(5),
  })
  .strict();

// A plain SQL identifier: the store quotes it into its statements.
const identifier = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,47}$/, 'must be a plain identifier (letters, digits, _)');

/**
 * Where applications come from: `config` serves `applications[]` (changed by a restart), `postgres` serves a table
 * that `realtime apps …` (or any SQL writer) changes while every node runs.
 */
export const appStoreSchema = z
  .object({
    driver: z.enum(['config', 'postgres']).default('config'),
    postgres: z
      .object({
        /** A connection string, e.g. postgres://herald@db:5432/herald. */
        url: z.string().min(1).optional(),
        schema: identifier.default('public'),
        table: identifier.default('herald_apps'),
        /** Create or extend the table and its trigger when the server starts. */
        migrate: z.boolean().default(true),
      })
      .strict()
      .prefault({}),
    /** Seconds `realtime apps rotate-secret` keeps the replaced secret valid (`--grace` overrides). */
    rotate_grace_seconds: z.number().int().min(0).default(300),
  })
  .strict()
  .superRefine((store, ctx) => {
    if (store.driver === 'postgres' && store.postgres.url === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['postgres', 'url'],
        message: 'is required when driver is "postgres" (or set REALTIME_APP_STORE_URL)',
      });
    }
  });

// Who may read /metrics (issue 27). Kept in its own block to ease merging.
/**
 * `/metrics` security: a bearer token (compared in constant time; 401 without it), and/or a port of its own, bound
 * to localhost by default, so the main port no longer answers it.
 */
export const metricsSchema = z
  .object({
    /** Required as `Authorization: Bearer <token>` on /metrics; `REALTIME_METRICS_TOKEN` overrides. */
    auth_token: z
      .string()
      .min(16, 'must be at least 16 characters (make one with `openssl rand -hex 32`)')
      .optional(),
    /** Serve /metrics on this port instead of the main one (0 picks a free port); `REALTIME_METRICS_PORT` overrides. */
    port: z.number().int().min(0).max(65535).optional(),
    /** The address the metrics port binds. */
    host: z.string().min(1).default('127.0.0.1'),
  })
  .strict();

export const configSchema = z
  .object({
    /** Who may read /metrics: a bearer token and/or a port of its own. */
    metrics: metricsSchema.prefault({}),
    default: z.string().min(1).default('herald'),
    servers: z.record(z.string(), serverSchema).default({ herald: serverSchema.parse({}) }),
    /** The apps served with `app_store.driver` "config" (the default); not read with "postgres". */
    applications: z.array(applicationSchema).default([]),
    app_store: appStoreSchema.prefault({}),
    /**
     * What carries the sockets: `auto` runs a native uWebSockets.js build where one loads and the portable
     * transport (node:http) otherwise; `uws` or `portable` forces one.
     */
    transport: z.enum(['auto', 'uws', 'portable']).default('auto'),
    scaling: z
      .object({
        enabled: z.boolean().default(false),
        /** The pub/sub channel, under `prefix`: 'herald:broadcast' by default. */
        channel: z.string().min(1).default('broadcast'),
        /** Prepended to every Redis key, so several deployments can share one Redis. */
        prefix: z.string().default('herald:'),
        /** This node's id; random when absent. */
        node_id: z.string().min(1).optional(),
        heartbeat_ms: z.number().int().positive().default(2000),
        dead_after_ms: z.number().int().positive().optional(),
        cluster_mode: z.boolean().default(false),
        /**
         * `interest`: a node receives a channel's traffic only while it holds subscribers of it (a topic per
         * channel); `broadcast`: every node receives everything over `channel`. The same on every node.
         */
        routing: z
          .enum(['interest', 'broadcast'], { error: 'must be "interest" or "broadcast"' })
          .default('interest'),
        /** How long a node keeps a channel's topic after its last local subscriber left (interest routing). */
        unsubscribe_delay_ms: z.number().int().min(0).default(3000),
        /** Redis Cluster nodes to discover the cluster from (`host:port`). */
        nodes: z.array(z.string().min(1)).optional(),
        /**
         * Bytes of frames the shared history (apps with `history.enabled`) keeps per channel in Redis; past it the
         * channel's oldest events are dropped (`trimmed`). 4 MiB by default.
         */
        history_bytes_per_channel: z
          .number()
          .int()
          .positive()
          .default(4 * 1024 * 1024),
        /**
         * How long a node answers `/metrics` from its last measure of the shared history's size before measuring again
         * (a walk over every master's keys): 10 s by default.
         */
        history_size_cache_ms: z.number().int().min(0).default(10_000),
        server: redisServerSchema.prefault({}),
      })
      .strict()
      .prefault({}),
    redis: z.record(z.string(), z.unknown()).default({}),
    /** Delivery settings shared by every app's webhooks: batching, retries, timeouts, the queue cap. */
    webhooks: webhookSettingsSchema.prefault({}),
    /** The operator console at `{path}/console`: off unless enabled with a token (on with embedded defaults). */
    console: consoleSchema.prefault({}),
    rate_limiter: z
      .object({
        enabled: z.boolean().default(false),
        driver: z.enum(['local', 'redis']).default('local'),
        default_limits: z
          .object({
            max_backend_events_per_second: z.number().positive().default(100),
            max_frontend_events_per_second: z.number().positive().default(10),
            max_read_requests_per_second: z.number().positive().default(50),
          })
          .strict()
          .prefault({}),
        connection: z
          .object({
            enabled: z.boolean().default(false),
            max_messages_per_second: z.number().positive().default(60),
            terminate_on_limit: z.boolean().default(false),
          })
          .strict()
          .prefault({}),
        redis: z
          .object({
            host: z.string().default('127.0.0.1'),
            port: z.number().int().default(6379),
            password: z.string().optional(),
            database: z.number().int().min(0).default(0),
            url: z.string().min(1).optional(),
            cluster_mode: z.boolean().default(false),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
    logging: z
      .object({
        enabled: z.boolean().default(true),
        debug_enabled: z.boolean().default(false),
        log_file: z.string().optional(),
        log_path: z.string().optional(),
        scopes: z.record(z.string(), z.boolean()).default({}),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .superRefine((config, ctx) => {
    if (config.app_store.driver === 'config' && config.applications.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['applications'],
        message: 'at least one application is required (or set app_store.driver to "postgres")',
      });
    }
    if (!(config.default in config.servers)) {
      ctx.addIssue({
        code: 'custom',
        path: ['default'],
        message: `names server "${config.default}", which is not under servers (${Object.keys(config.servers).join(', ')})`,
      });
    }
    const workers = config.servers[config.default]?.workers ?? 1;
    if (workers > 1 && !config.scaling.enabled) {
      ctx.addIssue({
        code: 'custom',
        path: ['servers', config.default, 'workers'],
        message:
          `is ${workers} (from --workers, REALTIME_WORKERS or the file), which needs scaling.enabled: each worker is a ` +
          'separate process and cluster node, and without Redis they would not share channels, presence or ' +
          'published events (set scaling.enabled and scaling.server, or REALTIME_SCALING_ENABLED and REALTIME_REDIS_URL)',
      });
    }
    const seen = { id: new Set<string>(), key: new Set<string>() };
    config.applications.forEach((app, index) => {
      for (const field of ['id', 'key'] as const) {
        if (seen[field].has(app[field])) {
          ctx.addIssue({
            code: 'custom',
            path: ['applications', index, field],
            message: `duplicate ${field} "${app[field]}"`,
          });
        }
        seen[field].add(app[field]);
      }
    });
  });

/** The configuration file as written, before defaults. */
export type RealtimeConfigInput = z.input<typeof configSchema>;
/** The validated configuration with every default applied. */
export type RealtimeConfig = z.output<typeof configSchema>;
export type ApplicationConfig = z.output<typeof applicationSchema>;
export type ServerConfig = z.output<typeof serverSchema>;
export type AppStoreConfig = z.output<typeof appStoreSchema>;
export type MetricsConfig = z.output<typeof metricsSchema>;

/** Turns zod issues into lines of `key.path: message`. */
export function formatIssues(issues: readonly z.core.$ZodIssue[], root = ''): string[] {
  return issues.map((issue) => {
    const path = [root, ...issue.path.map(String)].filter((part) => part !== '').join('.');
    return `${path || '(root)'}: ${issue.message}`;
  });
}
