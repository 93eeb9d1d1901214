import {
  type ApiApp,
  createFastTrigger,
  createHttpApi,
  type HttpApiOptions,
  type RealtimeBackend,
} from '@herald/http-api';
import {
  type AppChanges,
  type AppStore,
  createRealtimeServer,
  type Logger,
  type RealtimeApp,
  type RealtimeServer,
  type ServerMetrics,
} from '@herald/realtime-server';
// Types only: the adapter itself is imported when scaling or the redis driver is on.
import type {
  ClusterStats,
  RedisClusterAdapter,
  RedisServerOptions,
  RedisWebhookQueue,
} from '@herald/scaling-redis';
import { openAppSource, type ServedApp } from './app-source.js';
import type { RealtimeConfig, ServerConfig } from './config-schema.js';
import { scoped } from './logger.js';
import { startWebhooks } from './webhooks.js';

/**
 * Maps an application's config keys onto the real-time server's options. Socket limits come from the app's own
 * keys, else from `rate_limiter` (client events when it is enabled, frames when `rate_limiter.connection` is).
 */
export function toRealtimeApp(app: ServedApp, limits: RealtimeConfig['rate_limiter']): RealtimeApp {
  const clientEvents = limits.enabled
    ? (app.max_frontend_events_per_second ?? limits.default_limits.max_frontend_events_per_second)
    : undefined;
  const frames =
    app.max_connection_messages_per_second ??
    (limits.connection.enabled ? limits.connection.max_messages_per_second : undefined);
  return {
    ...(clientEvents !== undefined ? { maxClientEventsPerSecond: clientEvents } : {}),
    ...(frames !== undefined ? { maxMessagesPerSecond: frames } : {}),
    terminateOnMessageLimit: app.connection_rate_limit_terminate ?? limits.connection.terminate_on_limit,
    id: app.id,
    key: app.key,
    secret: app.secret,
    ...(app.previous_secrets ? { previousSecrets: app.previous_secrets } : {}),
    name: app.name ?? app.id,
    enabled: app.enabled,
    maxConnections: app.max_connections,
    enableClientMessages: app.enable_client_messages,
    ...(app.accept_client_events_from ? { acceptClientEventsFrom: app.accept_client_events_from } : {}),
    allowedOrigins: app.allowed_origins,
    activityTimeout: app.activity_timeout,
    pingInterval: app.ping_interval,
    maxMessageSize: app.max_message_size,
    enableSubscriptionCount: app.enable_subscription_count,
    subscriptionCountIntervalMs: app.subscription_count_interval_ms,
    maxPresenceMembersPerChannel: app.max_presence_members_per_channel,
    maxPresenceMemberSizeInKb: app.max_presence_member_size_in_kb,
    maxEventPayloadInKb: app.max_event_payload_in_kb,
    maxEventNameLength: app.max_event_name_length,
    maxChannelNameLength: app.max_channel_name_length,
  };
}

/** Maps an application's config keys onto the HTTP API's view of it. */
export function toApiApp(app: ServedApp): ApiApp {
  return {
    id: app.id,
    key: app.key,
    secret: app.secret,
    ...(app.previous_secrets ? { previousSecrets: app.previous_secrets } : {}),
    enabled: app.enabled,
    allowedOrigins: app.allowed_origins,
    maxEventPayloadInKb: app.max_event_payload_in_kb,
    maxEventChannelsAtOnce: app.max_event_channels_at_once,
    maxEventBatchSize: app.max_event_batch_size,
    maxEventNameLength: app.max_event_name_length,
    maxChannelNameLength: app.max_channel_name_length,
    maxBackendEventsPerSecond: app.max_backend_events_per_second,
    maxReadRequestsPerSecond: app.max_read_requests_per_second,
  };
}

/** The Redis adapter's counters in the Prometheus text format, after the server's own metrics. */
function clusterStatsText(stats: ClusterStats): string {
  const lines = [
    [
      'herald_cluster_messages_received_total',
      'counter',
      'Messages received from Redis (every channel and topic this node listens on).',
      stats.messagesReceived,
    ],
    ['herald_cluster_bytes_received_total', 'counter', 'Bytes received from Redis.', stats.bytesReceived],
    [
      'herald_cluster_topics',
      'gauge',
      'Channel and user topics this node subscribes (interest routing).',
      stats.topics,
    ],
    ['herald_cluster_topic_subscribes_total', 'counter', 'Topics subscribed.', stats.subscribes],
    ['herald_cluster_topic_unsubscribes_total', 'counter', 'Topics dropped.', stats.unsubscribes],
  ] as const;
  return lines
    .map(([name, type, help, value]) => `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n${name} ${value}\n`)
    .join('');
}

/** The real-time server seen through the HTTP API's port. */
export function backendOf(server: RealtimeServer, cluster?: RedisClusterAdapter): RealtimeBackend {
  return {
    publish: (appId, event) => server.publish(appId, event),
    channels: (appId, query) => server.channels(appId, query.prefix),
    channel: (appId, name) => server.channel(appId, name),
    presenceUsers: (appId, name) => server.presenceUsers(appId, name),
    terminateUser: (appId, userId) => {
      server.terminateUser(appId, userId);
    },
    metrics: cluster
      ? async () => {
          const rendered = await server.metrics.render();
          return { ...rendered, body: rendered.body + clusterStatsText(cluster.stats()) };
        }
      : () => server.metrics.render(),
    ready: () => !server.draining,
  };
}

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

/**
 * The shared webhook queue of a cluster (Redis streams), so events queued by a node that dies are delivered by
 * another; made only when some app has webhooks.
 */
function redisWebhookQueue(
  redis: typeof import('@herald/scaling-redis'),
  config: RealtimeConfig,
  logger: Logger,
  apps: readonly ServedApp[],
): RedisWebhookQueue | undefined {
  const dynamic = config.app_store.driver !== 'config';
  if (!dynamic && !apps.some((app) => app.webhooks.length > 0)) return undefined;
  return redis.createRedisWebhookQueue({
    ...scalingRedis(config),
    keyPrefix: config.scaling.prefix,
    leaseMs: config.webhooks.queue_lease_ms,
    logger,
  });
}

/** Asks every node of the cluster to restart, through the Redis in `scaling.*` (`realtime restart_server`). */
export async function requestClusterRestart(config: RealtimeConfig): Promise<number> {
  const { publishRestart } = await import('@herald/scaling-redis');
  return publishRestart(scalingRedis(config));
}

/** A running real-time server with its REST API. */
export interface RunningRealtime {
  readonly server: RealtimeServer;
  readonly port: number;
  readonly settings: ServerConfig;
  /** The apps served right now (from the config file, or as last read from the app store). */
  apps(): readonly ServedApp[];
  /**
   * Restarts in place with a re-read config: every socket closes with 4200 and the apps, limits and REST API
   * are rebuilt on the same listening socket. Returns what could not change without a process restart.
   */
  reload(next: RealtimeConfig): string[];
  /** Stops gracefully: `/ready` turns 503, sockets close with 4200 over `shutdown_grace_period`, then `close`. */
  shutdown(): Promise<void>;
  close(): Promise<void>;
}

/** Builds the server named by `config.default`, wires the REST API into it and starts listening. */
export async function startRealtime(
  config: RealtimeConfig,
  logger: Logger,
  hooks: {
    onRestart?: () => void;
    /** Called after the app store reported a change and it was applied on this node. */
    onAppsChanged?: (apps: readonly ServedApp[], changes: AppChanges) => void;
    /** Called once everything is built, just before the port opens (the bin collects start-up garbage here). */
    beforeListen?: () => void;
  } = {},
): Promise<RunningRealtime> {
  const settings = config.servers[config.default] as ServerConfig;
  const tls = settings.options.tls;
  const scaling = config.scaling;
  // The adapter is made before the server that owns the metrics registry: count through a late-bound hook.
  let countInto: ServerMetrics | undefined;
  const clusterMetrics = {
    messageSent: (type: string) => countInto?.clusterHooks().messageSent(type),
    messageReceived: (type: string) => countInto?.clusterHooks().messageReceived(type),
    error: (operation: string) => countInto?.clusterHooks().error(operation),
    nodeReaped: (nodeId: string) => countInto?.clusterHooks().nodeReaped(nodeId),
    resynced: () => countInto?.clusterHooks().resynced(),
  };
  // Redis is loaded only when it is used: a single node starts without it.
  const redis =
    scaling.enabled || (config.rate_limiter.enabled && config.rate_limiter.driver === 'redis')
      ? await import('@herald/scaling-redis')
      : undefined;
  const cluster =
    scaling.enabled && redis
      ? redis.createRedisCluster({
          ...scalingRedis(config),
          keyPrefix: scaling.prefix,
          heartbeatMs: scaling.heartbeat_ms,
          ...(scaling.dead_after_ms ? { deadAfterMs: scaling.dead_after_ms } : {}),
          ...(scaling.node_id ? { nodeId: scaling.node_id } : {}),
          routing: scaling.routing,
          unsubscribeDelayMs: scaling.unsubscribe_delay_ms,
          logger: scoped(logger, 'socket.server.redis'),
          metrics: clusterMetrics,
        })
      : undefined;
  // The apps come from the app store; its counts go into the server's metrics once the server exists.
  const storeHooks = {
    outage: () => countInto?.appStoreHooks().outage(),
    restored: () => countInto?.appStoreHooks().restored(),
    skippedRows: (count: number) => countInto?.appStoreHooks().skippedRows(count),
  };
  const store: AppStore<ServedApp> = await openAppSource(config, logger, storeHooks);
  let served: readonly ServedApp[];
  try {
    served = await store.load();
  } catch (error) {
    await store.close();
    throw error;
  }
  let current = config;
  // The REST API looks apps up here on every request: a Map, replaced whole when the store reports a change.
  let apiApps = new Map(served.map((app) => [app.id, toApiApp(app)]));
  const limits = config.rate_limiter;
  const sharedLimits =
    limits.enabled && limits.driver === 'redis' && redis
      ? redis.redisRateLimitStore({
          ...(limits.redis.url
            ? { url: limits.redis.url }
            : { host: limits.redis.host, port: limits.redis.port }),
          password: limits.redis.password,
          database: limits.redis.database,
          clusterMode: limits.redis.cluster_mode,
          keyPrefix: `${scaling.prefix}rl:`,
          logger: scoped(logger, 'socket.server.redis'),
        })
      : undefined;
  const server = createRealtimeServer({
    ...(cluster ? { cluster } : {}),
    apps: served.map((app) => toRealtimeApp(app, config.rate_limiter)),
    transport: config.transport,
    host: settings.host,
    port: settings.port,
    path: settings.path,
    activityTimeout: settings.activity_timeout,
    pingInterval: settings.ping_interval,
    maxRequestSize: settings.max_request_size,
    ...(tls.local_cert && tls.local_pk
      ? {
          tls: {
            certFile: tls.local_cert,
            keyFile: tls.local_pk,
            ...(tls.passphrase ? { passphrase: tls.passphrase } : {}),
          },
        }
      : {}),
    logger: scoped(logger, 'socket.server'),
    httpHandler: (request) => api.app.fetch(request),
    httpFastPath: (request) => api.fast?.(request),
    ...(hooks.onRestart ? { onRestart: hooks.onRestart } : {}),
  });
  countInto = server.metrics;
  const webhookQueue =
    cluster && redis ? redisWebhookQueue(redis, config, scoped(logger, 'webhooks'), served) : undefined;
  const webhooks = startWebhooks({
    server,
    apps: served,
    settings: config.webhooks,
    logger: scoped(logger, 'webhooks'),
    queue: webhookQueue,
    dynamic: config.app_store.driver !== 'config',
  });
  const buildApi = (next: RealtimeConfig) => {
    const nextLimits = next.rate_limiter;
    const apiOptions: HttpApiOptions = {
      apps: (id) => apiApps.get(id),
      backend: backendOf(server, cluster),
      path: settings.path,
      maxRequestSize: settings.max_request_size,
      logger: scoped(logger, 'http.api'),
      ...(nextLimits.enabled
        ? {
            rateLimits: {
              maxBackendEventsPerSecond: nextLimits.default_limits.max_backend_events_per_second,
              maxReadRequestsPerSecond: nextLimits.default_limits.max_read_requests_per_second,
              ...(sharedLimits ? { store: sharedLimits } : {}),
            },
          }
        : {}),
    };
    // The hottest call, a well-formed trigger, is answered from raw parts; everything else goes through hono.
    return { app: createHttpApi(apiOptions), fast: createFastTrigger(apiOptions) };
  };
  let api = buildApi(config);
  hooks.beforeListen?.();
  const port = await server.listen();
  const appLog = scoped(logger, 'app_store');
  const stopWatching = store.watch((apps) => {
    try {
      const changes = server.setApps(apps.map((app) => toRealtimeApp(app, current.rate_limiter)));
      served = apps;
      apiApps = new Map(apps.map((app) => [app.id, toApiApp(app)]));
      webhooks?.reload(apps);
      hooks.onAppsChanged?.(apps, changes);
    } catch (error) {
      appLog.error('app change not applied', { error });
    }
  });
  return {
    server,
    port,
    settings,
    apps: () => served,
    reload(next) {
      const nextSettings = next.servers[next.default] as ServerConfig;
      const kept = (['host', 'port', 'path', 'options'] as const).filter(
        (key) =>
          JSON.stringify(nextSettings[key]) !== JSON.stringify(settings[key]) &&
          !(key === 'port' && nextSettings.port === 0),
      );
      const keptScaling = JSON.stringify(next.scaling) !== JSON.stringify(config.scaling);
      const keptStore = JSON.stringify(next.app_store) !== JSON.stringify(config.app_store);
      // The file's apps are re-read by a restart; a store's apps are already current (it reports every change).
      if (config.app_store.driver === 'config') served = next.applications;
      current = next;
      apiApps = new Map(served.map((app) => [app.id, toApiApp(app)]));
      api = buildApi(next);
      webhooks?.reload(served);
      server.reload({ apps: served.map((app) => toRealtimeApp(app, next.rate_limiter)) });
      return [
        ...kept.map((key) => `servers.${next.default}.${key} changed: it applies at the next process start`),
        ...(keptScaling ? ['scaling changed: it applies at the next process start'] : []),
        ...(keptStore ? ['app_store changed: it applies at the next process start'] : []),
      ];
    },
    shutdown: async () => {
      await server.drain({ graceMs: settings.shutdown_grace_period * 1000 });
      await server.close();
      // The vacated and member_removed events of the drain are queued before the dispatcher stops.
      await webhooks?.close(5000);
      await webhookQueue?.close();
      await sharedLimits?.close();
    },
    close: async () => {
      stopWatching();
      await store.close();
      await server.close();
      await webhooks?.close(0);
      await webhookQueue?.close();
      await sharedLimits?.close();
    },
  };
}
