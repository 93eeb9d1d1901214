import {
  type AppChanges,
  type AppStore,
  createRealtimeServer,
  type Logger,
  type RealtimeServer,
  ServerMetrics,
} from '@herald/realtime-server';
import { openAppSource, type ServedApp } from './app-source.js';
import { watchAppStore } from './app-watch.js';
import type { RealtimeConfig, ServerConfig } from './config-schema.js';
import { CONSOLE_RECENT_DELIVERIES, type MountedConsole, mountConsole } from './console/mount.js';
import { scoped } from './logger.js';
import { startMetricsServer } from './metrics-server.js';
import {
  clusterAdapter,
  loadScalingRedis,
  redisHistory,
  redisUsage,
  redisWebhookQueue,
  sharedRateLimits,
} from './redis-parts.js';
import { reloadRealtime } from './reload.js';
import { backendOf, createRestApi, type RestApi } from './rest-api.js';
import { createServedApps } from './served-apps.js';
import { serverOptions } from './server-options.js';
import { createTeardown } from './teardown.js';
import { startWebhooks } from './webhooks.js';

export { requestClusterRestart } from './redis-parts.js';

/** A running real-time server with its REST API. */
export interface RunningRealtime {
  readonly server: RealtimeServer;
  readonly port: number;
  readonly settings: ServerConfig;
  /** The port `/metrics` is served on when `metrics.port` is set (else it is on `port`). */
  readonly metricsPort: number | undefined;
  /** The apps served right now (from the config file, or as last read from the app store). */
  apps(): readonly ServedApp[];
  /**
   * Restarts in place with a re-read config: every socket closes with 4200 and the apps, limits and REST API
   * are rebuilt on the same listening socket. Returns what could not change without a process restart.
   */
  reload(next: RealtimeConfig): string[];
  /**
   * Stops gracefully: `/ready` turns 503, sockets close with 4200 over `shutdown_grace_period`, then everything
   * `close` closes.
   */
  shutdown(): Promise<void>;
  /** Closes the app store and its watcher, the server, the webhooks and the Redis connections. */
  close(): Promise<void>;
}

/** Reads the apps a store holds; a store that cannot be read is closed again. */
async function loadApps(store: AppStore<ServedApp>): Promise<readonly ServedApp[]> {
  try {
    return await store.load();
  } catch (error) {
    await store.close();
    throw error;
  }
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
    /** `REALTIME_APP_STORE_KEY`: the PostgreSQL app store's secrets are encrypted with it at rest. */
    storeKey?: Uint8Array | undefined;
  } = {},
): Promise<RunningRealtime> {
  const settings = config.servers[config.default] as ServerConfig;
  // Made first, so the parts built before the server (the cluster adapter, the app store) count into its registry.
  const metrics = new ServerMetrics();
  const redis = await loadScalingRedis(config);
  const cluster = clusterAdapter(redis, config, logger, metrics.registry);
  const store = await openAppSource(config, logger, { hooks: metrics.appStoreHooks(), key: hooks.storeKey });
  const apps = createServedApps(await loadApps(store), config.rate_limiter);
  const sharedLimits = sharedRateLimits(redis, config, logger);
  const history = redisHistory(redis, config, logger);
  const usageStore = redisUsage(redis, config, { logger, cluster });
  // Requests reach the REST API only once the server listens, after the API below exists.
  const server = createRealtimeServer(
    serverOptions(config, settings, {
      apps: apps.forServer(),
      metrics,
      cluster,
      history,
      http: {
        // The console's routes first (when it is on); everything else is the REST API.
        handler: (request, connection) =>
          operatorConsole &&
          request.url.includes('/console') &&
          operatorConsole.owns(new URL(request.url).pathname)
            ? operatorConsole.fetch(request, connection)
            : api.fetch(request, connection),
        fast: (request) => api.fast(request),
      },
      logger,
      onRestart: hooks.onRestart,
    }),
  );
  const webhookQueue = redisWebhookQueue(redis, config, logger, apps.list());
  const webhooks = startWebhooks({
    server,
    apps: apps.list(),
    settings: config.webhooks,
    logger: scoped(logger, 'webhooks'),
    queue: webhookQueue,
    dynamic: config.app_store.driver !== 'config',
    keepRecent: config.console.enabled ? CONSOLE_RECENT_DELIVERIES : 0,
  });
  const operatorConsole: MountedConsole | undefined = mountConsole({
    config,
    server,
    apps: apps.list,
    webhooks: () => webhooks,
    usageStore,
  });
  const api: RestApi = createRestApi({ server, apps, settings, logger, sharedLimits, config });
  // Before the main port opens: a metrics port that cannot be bound stops the start, with nothing served yet.
  const metricsServer =
    config.metrics.port === undefined
      ? undefined
      : await startMetricsServer({
          backend: backendOf(server),
          settings: config.metrics,
          logger: scoped(logger, 'http.api'),
        });
  hooks.beforeListen?.();
  const port = await server.listen();
  const stopWatching = watchAppStore(store, {
    server,
    apps,
    webhooks,
    logger,
    onAppsChanged: hooks.onAppsChanged,
  });
  const teardown = createTeardown({
    stopWatching: () => {
      operatorConsole?.close();
      stopWatching();
    },
    store,
    server,
    webhooks,
    webhookQueue,
    sharedLimits,
    history,
    usageStore,
  });
  return {
    server,
    port,
    settings,
    metricsPort: metricsServer?.port,
    apps: apps.list,
    reload: (next) => {
      // Where /metrics is served stays as started (the port is bound once); its token follows the new config.
      const { port: metricsPortNext, host, ...access } = next.metrics;
      const moved = metricsPortNext !== config.metrics.port || host !== config.metrics.host;
      const kept = { ...next, metrics: { ...access, port: config.metrics.port, host: config.metrics.host } };
      metricsServer?.update(kept.metrics);
      const pending = reloadRealtime(config, kept, { server, apps, api, webhooks });
      return moved
        ? [...pending, 'metrics.port or metrics.host changed: it applies at the next process start']
        : pending;
    },
    async shutdown() {
      await teardown.shutdown(settings.shutdown_grace_period * 1000);
      await metricsServer?.close();
    },
    async close() {
      await teardown.close();
      await metricsServer?.close();
    },
  };
}
