import type { ClusterAdapter } from '@herald/protocol-core';
import type {
  ChannelHistory,
  FastHttpHandler,
  FetchHandler,
  Logger,
  RealtimeApp,
  RealtimeServerOptions,
  ServerMetrics,
} from '@herald/realtime-server';
import type { RealtimeConfig, ServerConfig } from './config-schema.js';
import { scoped } from './logger.js';

/** Maps the server's config keys (`servers.<default>`, `transport`) and the app's parts onto the server's options. */
export function serverOptions(
  config: RealtimeConfig,
  settings: ServerConfig,
  parts: {
    readonly apps: RealtimeApp[];
    readonly metrics: ServerMetrics;
    readonly cluster?: ClusterAdapter | undefined;
    /** The history a cluster shares; without it the server keeps its own in memory. */
    readonly history?: ChannelHistory | undefined;
    readonly http: { readonly handler: FetchHandler; readonly fast: FastHttpHandler };
    readonly logger: Logger;
    readonly onRestart?: (() => void) | undefined;
  },
): RealtimeServerOptions {
  const tls = settings.options.tls;
  return {
    ...(parts.cluster ? { cluster: parts.cluster } : {}),
    ...(parts.history ? { history: parts.history } : {}),
    apps: parts.apps,
    metrics: parts.metrics,
    transport: config.transport,
    host: settings.host,
    port: settings.port,
    path: settings.path,
    activityTimeout: settings.activity_timeout,
    pingInterval: settings.ping_interval,
    maxRequestSize: settings.max_request_size,
    maxConnectionsPerIp: settings.max_connections_per_ip,
    maxUpgradesPerIpPerSecond: settings.max_upgrades_per_ip_per_second,
    trustedProxies: settings.trusted_proxies,
    maxBufferedBytesPerSocket: settings.max_buffered_bytes_per_socket,
    slowConsumer: settings.slow_consumer,
    ...(tls.local_cert && tls.local_pk
      ? {
          tls: {
            certFile: tls.local_cert,
            keyFile: tls.local_pk,
            ...(tls.passphrase ? { passphrase: tls.passphrase } : {}),
          },
        }
      : {}),
    logger: scoped(parts.logger, 'socket.server'),
    httpHandler: parts.http.handler,
    httpFastPath: parts.http.fast,
    ...(parts.onRestart ? { onRestart: parts.onRestart } : {}),
  };
}
