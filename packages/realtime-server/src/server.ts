// The server, composed: each concern lives in a room of its own under ./server/ (admission, frames, subscribe,
// presence-join, fan-out, …), sharing one context; this file builds the context, wires the transport's handlers to
// the rooms, and answers the public API.

import { type ClusterAdapter, createSocketIdGenerator } from '@herald/protocol-core';
import type { RealtimeApp, ResolvedApp } from './app.js';
import { ApplicationEventEmitter } from './application-events.js';
import { parseTrustedProxies } from './client-address.js';
import { SingleNode } from './cluster/single-node.js';
import type { DebugPort } from './debug/debug-events.js';
import { createDebugHub } from './debug/debug-hub.js';
import { listPresenceMembers, type PresenceMemberInfo } from './debug/presence-members.js';
import { RealtimeServerError } from './errors.js';
import { createMemoryHistory } from './history/memory-history.js';
import type { ChannelHistory, HistoryList } from './history/types.js';
import type { FastHttpHandler, FetchHandler } from './http-bridge.js';
import { type Logger, silentLogger } from './logger.js';
import { ServerMetrics } from './metrics.js';
import { createAddressLimits } from './server/address-limits.js';
import { admit, socketData } from './server/admission.js';
import { type AppChange, type AppChanges, removeApp, setApps, upsertApp } from './server/app-changes.js';
import { createAppRegistry, loadApps } from './server/app-registry.js';
import { localCachedEvent } from './server/cache-channels.js';
import {
  type ChannelDetails,
  type ChannelSummary,
  countConnections,
  listChannels,
  listHistory,
  listPresenceUsers,
  readChannel,
} from './server/channel-queries.js';
import { createClusterListener } from './server/cluster-listener.js';
import { disconnect } from './server/disconnect.js';
import { type PublishRequest, publish } from './server/fan-out.js';
import { onMessage } from './server/frames.js';
import { guard } from './server/guard.js';
import { createHttpRoute } from './server/http.js';
import { createIdleSweep, markActive } from './server/idle-sweep.js';
import { drain, dropConnections } from './server/shutdown.js';
import {
  backpressureCap,
  createSlowConsumerSweep,
  type SlowConsumerPolicy,
} from './server/slow-consumers.js';
import type { ServerContext, Socket, SocketData } from './server/state.js';
import { terminateUser } from './server/terminate.js';
import { selectTransport } from './transport/select.js';
import type { HttpExchange, TlsOptions, TransportName, TransportPreference } from './transport/types.js';

export type { AppChange, AppChanges, ChannelDetails, ChannelSummary, PublishRequest, SlowConsumerPolicy };

/** Options of {@link createRealtimeServer}. */
export interface RealtimeServerOptions {
  readonly apps: readonly RealtimeApp[];
  /** Address to bind. Default `0.0.0.0`. */
  readonly host?: string;
  /** Port to bind; 0 picks a free one. Default 8080. */
  readonly port?: number;
  /** Prefix of every route, e.g. `/realtime`. Default ''. */
  readonly path?: string;
  readonly tls?: TlsOptions;
  /**
   * `auto` (default) runs a native uWebSockets.js build where one loads and the portable transport (node:http +
   * ws) otherwise; `uws` or `portable` forces one.
   */
  readonly transport?: TransportPreference;
  /** Fallback `activity_timeout` (seconds) for apps that set none. Default 120. */
  readonly activityTimeout?: number;
  /** Fallback `ping_interval` (seconds) for apps that set none. Default 30. */
  readonly pingInterval?: number;
  /** Answers every HTTP request that is not a WebSocket upgrade (the REST API). Default: 404 for all. */
  readonly httpHandler?: FetchHandler;
  /** Tried before `httpHandler` for the hottest calls, from raw parts (e.g. http-api's `createFastTrigger`). */
  readonly httpFastPath?: FastHttpHandler;
  /** Largest HTTP request body in bytes; larger ones get 413. Default 10000. */
  readonly maxRequestSize?: number;
  /** Number before the dot of every socket id: unique per node in a cluster. Default random. */
  readonly nodeNumber?: number;
  /** Collect process metrics (CPU, memory, event loop) as well. Default true. */
  readonly processMetrics?: boolean;
  /**
   * The metrics to count into, for an app that registers other parts' metrics on `metrics.registry` before the
   * server exists (e.g. a cluster adapter's). Default: new ones (with `processMetrics`).
   */
  readonly metrics?: ServerMetrics;
  /**
   * Joins this server to a cluster (e.g. `createRedisCluster` from @herald/scaling-redis): broadcasts reach every
   * node, and presence, counts, connection limits and cache channels hold cluster-wide. Default: a cluster of one
   * (this server alone), kept in memory.
   */
  readonly cluster?: ClusterAdapter;
  /**
   * Called when a restart is requested through the cluster. Default: close every socket with 4200 and keep
   * serving. Apps pass a handler that also re-reads their config.
   */
  readonly onRestart?: () => void;
  /**
   * Where channel serials are assigned and recent events kept, for apps with `history.enabled`. Default: in this
   * process (`createMemoryHistory`), which is right for a server alone; a cluster passes a store every node shares.
   */
  readonly history?: ChannelHistory;
  /** The default in-memory history's byte cap per app (frames of all its channels). Default 32 MiB. */
  readonly historyBytesPerApp?: number;
  /**
   * Open WebSockets one client address may hold on this node; over it the upgrade is answered 429 with
   * `Retry-After`. 0 (the default) is off.
   */
  readonly maxConnectionsPerIp?: number;
  /** Upgrades one client address may make per second (a token bucket, one second's burst); 0 (default) is off. */
  readonly maxUpgradesPerIpPerSecond?: number;
  /**
   * Proxies (addresses or CIDR ranges, IPv4 or IPv6) whose `X-Forwarded-For` names the client address; from any
   * other peer the header is ignored. Default none.
   */
  readonly trustedProxies?: readonly string[];
  /** Unsent bytes one socket may have before {@link RealtimeServerOptions.slowConsumer} applies. Default 1 MiB. */
  readonly maxBufferedBytesPerSocket?: number;
  /**
   * `close` (default): a socket over `maxBufferedBytesPerSocket` is closed with 4100; `drop`: further frames to it
   * are dropped until it catches up (the behaviour before this option).
   */
  readonly slowConsumer?: SlowConsumerPolicy;
  readonly logger?: Logger;
}

/** Reads the per-address options; a bad `trustedProxies` entry is an `invalid_options` error naming it. */
function addressLimitsOf(options: RealtimeServerOptions, metrics: ServerMetrics) {
  const proxies = parseTrustedProxies(options.trustedProxies ?? []);
  if (!proxies.ok) {
    throw new RealtimeServerError(
      'invalid_options',
      `trustedProxies[${proxies.error.index}]: ${proxies.error.message}`,
    );
  }
  return createAddressLimits(
    {
      maxConnectionsPerIp: options.maxConnectionsPerIp ?? 0,
      maxUpgradesPerIpPerSecond: options.maxUpgradesPerIpPerSecond ?? 0,
      trustedProxies: proxies.value,
    },
    metrics,
  );
}

/** A running (or ready to run) Pusher-protocol server. */
export interface RealtimeServer {
  /** Starts listening; resolves with the bound port. @throws {RealtimeServerError} when the port cannot be bound. */
  listen(): Promise<number>;
  /** Closes every socket with 4200 (clients reconnect at once) and stops listening. */
  close(): Promise<void>;
  /** The bound port, once listening. */
  readonly port: number | undefined;
  /** Whether a native uWebSockets.js build carries the sockets (false: the portable transport). */
  readonly native: boolean;
  /** The transport that runs, and why it was chosen, in one sentence. */
  readonly transport: { readonly name: TransportName; readonly reason: string };
  readonly events: ApplicationEventEmitter;
  readonly metrics: ServerMetrics;
  /** Live debug events per app, for an operator console (cluster-wide when clustered); free while nobody watches. */
  readonly debug: DebugPort;
  /** The app with this id, with defaults applied. */
  findApp(appId: string): ResolvedApp | undefined;
  /** Publishes an event to channels of an app; the payload is serialised once per channel. */
  publish(appId: string, request: PublishRequest): void;
  /** Occupied channels of an app (cluster-wide when clustered), optionally only those starting with a prefix. */
  channels(appId: string, prefix?: string): Promise<ChannelSummary[]>;
  /** Occupancy, counts and cached event of one channel (cluster-wide when clustered). */
  channel(appId: string, name: string): Promise<ChannelDetails>;
  /** User ids present in a presence channel (cluster-wide when clustered). */
  presenceUsers(appId: string, name: string): Promise<string[]>;
  /**
   * Up to `limit` kept events of a channel with a serial above `afterSerial`, oldest first, with the channel's
   * position and first serial still held; `undefined` when the app keeps no history (or is not served here).
   */
  history(
    appId: string,
    name: string,
    query: { readonly afterSerial: number; readonly limit: number },
  ): Promise<HistoryList | undefined>;
  /**
   * Closes with 4009 every socket signed in as the user or present as them in a presence channel, on every node;
   * returns the number closed on this node.
   */
  terminateUser(appId: string, userId: string): number;
  /** Members of a presence channel (cluster-wide when clustered) with their `user_info` (an operator console's inspector). */
  presenceMembers(appId: string, name: string): Promise<PresenceMemberInfo[]>;
  /** Sockets currently open for an app (cluster-wide when clustered). */
  connectionCount(appId: string): Promise<number>;
  /** Closes every socket with 4200 so clients reconnect at once, and keeps serving. */
  dropConnections(message?: string): void;
  /**
   * Drains before a shutdown: from now on new sockets are closed with 4200 at once, and the open ones are closed
   * with 4200 in small batches spread over `graceMs` (so reconnecting clients do not stampede the other nodes).
   * Resolves once every socket is closed; HTTP keeps being served.
   */
  drain(options?: { readonly graceMs?: number }): Promise<void>;
  /** True from the start of {@link RealtimeServer.drain}. */
  readonly draining: boolean;
  /**
   * Restarts in place: closes every socket with 4200, forgets all channel state and serves the given apps (and
   * HTTP handler) from now on, on the same listening socket. Address, path and TLS stay as they are.
   */
  reload(next: {
    readonly apps: readonly RealtimeApp[];
    readonly httpHandler?: FetchHandler;
    readonly httpFastPath?: FastHttpHandler | undefined;
  }): void;
  /**
   * Serves exactly these apps from now on, without a restart and without touching other apps' sockets: a new app
   * accepts connections at once; a changed app keeps its sockets and channels (its config replaced in place);
   * an app that becomes disabled has its sockets closed with 4003, a removed one with 4001.
   * @throws {RealtimeServerError} `invalid_options` when two apps share an id or a key (nothing is changed).
   */
  setApps(apps: readonly RealtimeApp[]): AppChanges;
  /**
   * Adds an app or replaces its config in place, as {@link RealtimeServer.setApps} does for one app.
   * @throws {RealtimeServerError} `invalid_options` when another app already has its key.
   */
  upsertApp(app: RealtimeApp): AppChange;
  /** Removes an app, closing its sockets with 4001; false when no app has this id. */
  removeApp(appId: string): boolean;
}

/** Unsent bytes per socket by default: the cap under which frames were dropped before slow consumers were closed. */
const DEFAULT_MAX_BUFFERED_BYTES = 1024 * 1024;
// Addresses left with no socket and a refilling bucket are forgotten within this.
const ADDRESS_PRUNE_EVERY_MS = 5000;

/**
 * Creates a Pusher Channels protocol v7 server on uWebSockets.js. WebSockets upgrade at `{path}/app/{key}`;
 * every other HTTP request goes to `httpHandler`.
 *
 * @example
 * const server = createRealtimeServer({ apps: [{ id: '1', key: 'key', secret: 'secret' }], port: 6001 });
 * await server.listen();
 * server.publish('1', { channels: ['news'], event: 'posted', data: '{"title":"Hi"}' });
 */
export function createRealtimeServer(options: RealtimeServerOptions): RealtimeServer {
  const selected = selectTransport(options.transport);
  const native = selected.native;
  const logger = options.logger ?? silentLogger;
  const metrics = options.metrics ?? new ServerMetrics({ processMetrics: options.processMetrics ?? true });
  const path = (options.path ?? '').replace(/\/+$/, '');
  const nextSocketId = createSocketIdGenerator(options.nodeNumber);
  const apps = createAppRegistry({
    activityTimeout: options.activityTimeout ?? 120,
    pingInterval: options.pingInterval ?? 30,
  });
  const cluster =
    options.cluster ?? new SingleNode((appId, channel) => localCachedEvent(apps, appId, channel));
  loadApps(apps, metrics, options.apps);

  const addressLimits = addressLimitsOf(options, metrics);
  const slowConsumer = options.slowConsumer ?? 'close';
  const maxBufferedBytes = options.maxBufferedBytesPerSocket ?? DEFAULT_MAX_BUFFERED_BYTES;
  const maxMessageSize = Math.max(10_000, ...[...apps.byId.values()].map((app) => app.config.maxMessageSize));
  // The handlers reach the context and the HTTP route, built right below, only once sockets and requests come.
  const transport = selected.create<SocketData>({
    upgradePrefix: `${path}/app/`,
    tls: options.tls,
    maxPayloadLength: maxMessageSize * 4,
    maxBackpressure: backpressureCap(maxBufferedBytes, slowConsumer),
    handlers: {
      upgrade: (request) => socketData(ctx, request, nextSocketId()),
      open: guard(logger, 'open', (ws: Socket) => admit(ctx, ws)),
      message: guard(logger, 'message', (ws: Socket, message: ArrayBuffer | Uint8Array) =>
        onMessage(ctx, ws, message),
      ),
      activity: guard(logger, 'activity', markActive),
      close: guard(logger, 'close', (ws: Socket, code: number) => disconnect(ctx, ws, code)),
      http: guard(logger, 'http', (exchange: HttpExchange) => http.handle(exchange)),
    },
  });
  const ctx: ServerContext = {
    logger,
    events: new ApplicationEventEmitter(),
    metrics,
    cluster,
    history: options.history ?? createMemoryHistory({ maxBytesPerApp: options.historyBytesPerApp }),
    apps,
    socketsById: new Map(),
    confirming: new WeakMap(),
    transport,
    addressLimits,
    closing: false,
    draining: false,
    debug: createDebugHub({
      nodeId: () => cluster.nodeId,
      broadcast: (message) => cluster.broadcast(message),
      logger,
    }),
    reportListenerError: (error: unknown) => logger.error('application event listener threw', { error }),
  };
  metrics.watchHistorySize({
    *apps() {
      for (const [appId, app] of ctx.apps.byId) if (app.config.history !== undefined) yield appId;
    },
    size: (appId) => ctx.history.size?.(appId),
  });
  const http = createHttpRoute(ctx, options, {
    maxBodyBytes: options.maxRequestSize ?? 10_000,
    scheme: options.tls ? 'https' : 'http',
    path,
  });
  const sweep = createIdleSweep(ctx);
  const slowConsumers = slowConsumer === 'close' ? createSlowConsumerSweep(ctx, maxBufferedBytes) : undefined;
  const pruneAddresses = addressLimits.active
    ? setInterval(() => addressLimits.prune(Date.now()), ADDRESS_PRUNE_EVERY_MS).unref()
    : undefined;
  const clusterListener = createClusterListener(ctx, options.onRestart);
  let listening = false;
  let boundPort: number | undefined;

  const server: RealtimeServer = {
    get port() {
      return boundPort;
    },
    native,
    transport: { name: selected.name, reason: selected.reason },
    events: ctx.events,
    metrics,
    debug: ctx.debug,

    async listen() {
      await cluster.start(clusterListener);
      const host = options.host ?? '0.0.0.0';
      const port = options.port ?? 8080;
      boundPort = await transport.listen(host, port);
      listening = true;
      sweep.start();
      slowConsumers?.start();
      logger.info('listening', {
        host,
        port: boundPort,
        transport: selected.name,
        native,
        nodeId: cluster.nodeId,
      });
      return boundPort;
    },

    async close() {
      ctx.closing = true;
      sweep.stop();
      slowConsumers?.stop();
      if (pruneAddresses) clearInterval(pruneAddresses);
      ctx.debug.close();
      ctx.history.close();
      if (listening) transport.stopListening();
      listening = false;
      dropConnections(ctx, 'Server is shutting down');
      await cluster.stop().catch((error: unknown) => logger.warn('cluster stop failed', { error }));
    },

    dropConnections(message = 'Server is restarting') {
      dropConnections(ctx, message);
    },

    get draining() {
      return ctx.draining;
    },

    drain({ graceMs = 0 } = {}) {
      return drain(ctx, graceMs);
    },

    reload(next) {
      dropConnections(ctx, 'Server is restarting');
      loadApps(ctx.apps, metrics, next.apps);
      http.replace(next);
      if (listening) sweep.start();
      logger.info('reloaded', { scope: 'socket.server.restart', apps: next.apps.length });
    },

    setApps(apps) {
      const changes = setApps(ctx, apps);
      sweep.adjust();
      return changes;
    },

    upsertApp(app) {
      const change = upsertApp(ctx, app);
      sweep.adjust();
      return change;
    },

    removeApp(appId) {
      return removeApp(ctx, appId);
    },

    findApp(appId) {
      return ctx.apps.byId.get(appId)?.config;
    },

    publish(appId, request) {
      publish(ctx, appId, request);
    },

    channels(appId, prefix) {
      return listChannels(ctx, appId, prefix);
    },

    channel(appId, name) {
      return readChannel(ctx, appId, name);
    },

    presenceUsers(appId, name) {
      return listPresenceUsers(ctx, appId, name);
    },

    history(appId, name, query) {
      return listHistory(ctx, appId, name, query);
    },

    terminateUser(appId, userId) {
      return terminateUser(ctx, appId, userId);
    },

    presenceMembers(appId, name) {
      return listPresenceMembers(ctx, appId, name);
    },

    connectionCount(appId) {
      return countConnections(ctx, appId);
    },
  };
  return server;
}
