import { randomBytes } from 'node:crypto';
import type {
  ClusterAdapter,
  ClusterCachedEvent,
  ClusterChannelCounts,
  ClusterPresenceJoin,
  ClusterPresenceLeave,
  PresenceSnapshot,
} from '@herald/protocol-core';
import type { Registry } from 'prom-client';
import { createCachedEvents } from './cluster/cache.js';
import { createConnections } from './cluster/connections.js';
import { createNodeContext } from './cluster/context.js';
import { createHeartbeat } from './cluster/heartbeat.js';
import { createNodeLocks } from './cluster/locks.js';
import { type ClusterRouting, createRoute } from './cluster/message-route.js';
import { createMessaging } from './cluster/messaging.js';
import { createNodeMetrics, registerTrafficMetrics, type ScalingMetrics } from './cluster/metrics.js';
import { createOccupancy } from './cluster/occupancy.js';
import { createPresence } from './cluster/presence.js';
import { createResync } from './cluster/resync.js';
import { createRouting } from './cluster/routing.js';
import { type ClusterStats, createTraffic } from './cluster/traffic.js';
import { createUsers } from './cluster/users.js';
import { ScalingRedisError } from './errors.js';
import { createRedisLink } from './internal/connection.js';
import { createKeys } from './internal/keys.js';
import { type Logger, silentLogger } from './logger.js';
import type { RedisServerOptions } from './redis-options.js';

export type { ClusterRouting } from './cluster/message-route.js';
export type { ScalingMetrics } from './cluster/metrics.js';
export type { ClusterStats } from './cluster/traffic.js';

// The adapter of one node, composed of rooms (src/cluster/): the shared context (link, failure handling), messaging
// between nodes, presence, channel occupancy and counts, connections, signed-in users, cached events, the
// heartbeat with reaping, and the resync that rewrites this node's share after an outage.

/** Options of {@link createRedisCluster}: where Redis is, plus the cluster's own settings. */
export interface RedisClusterOptions extends RedisServerOptions {
  /** The pub/sub channel of broadcasts (`scaling.channel`); 'herald:broadcast' by default. */
  readonly channel?: string | undefined;
  /** Prepended to every key, so several deployments can share one Redis; 'herald:' by default. */
  readonly keyPrefix?: string | undefined;
  /** This node's id, unique in the cluster; random by default. */
  readonly nodeId?: string | undefined;
  /** How often the node refreshes its heartbeat and looks for dead nodes; 2000 ms by default. */
  readonly heartbeatMs?: number | undefined;
  /** How long a heartbeat may lapse before the node counts as dead; 3 × `heartbeatMs` by default. */
  readonly deadAfterMs?: number | undefined;
  /**
   * `interest` (the default): a node receives a channel's traffic only while it holds subscribers of it, over a
   * topic per channel (and `terminate` over a topic per user); `broadcast`: every message reaches every node over
   * `channel`, as before interest routing. Every node of a cluster should use the same.
   */
  readonly routing?: ClusterRouting | undefined;
  /** How long a topic no local socket needs is kept before it is dropped; 3000 ms by default. */
  readonly unsubscribeDelayMs?: number | undefined;
  readonly logger?: Logger | undefined;
  /** Hooks called as the adapter counts (see {@link ScalingMetrics}). */
  readonly metrics?: ScalingMetrics | undefined;
  /**
   * A prom-client registry the adapter registers its `herald_cluster_*` metrics on (messages, errors, reaps and
   * resyncs, and what it received from Redis); give each adapter a registry of its own.
   */
  readonly registry?: Registry | undefined;
}

/** The Redis adapter: the `ClusterAdapter` port, each answer a promise (Redis is asked), plus counters of what it received. */
export interface RedisClusterAdapter extends ClusterAdapter {
  admitConnection(appId: string, maxConnections: number): Promise<boolean>;
  joinPresence(input: Parameters<ClusterAdapter['joinPresence']>[0]): Promise<ClusterPresenceJoin>;
  leavePresence(appId: string, channel: string, socketId: string): Promise<ClusterPresenceLeave>;
  onlineUsers(appId: string, userIds: readonly string[]): Promise<string[]>;
  cachedEvent(appId: string, channel: string): Promise<ClusterCachedEvent | undefined>;
  channels(appId: string, prefix?: string): Promise<Array<{ readonly name: string } & ClusterChannelCounts>>;
  channel(appId: string, name: string): Promise<ClusterChannelCounts>;
  presenceUsers(appId: string, name: string): Promise<string[]>;
  presenceMembers(appId: string, name: string): Promise<PresenceSnapshot>;
  connectionCount(appId: string): Promise<number>;
  /** Messages and bytes received from Redis, and the topics this node subscribes (see {@link ClusterStats}). */
  stats(): ClusterStats;
}

/** The adapter with a crash switch, for tests of dead-node cleanup. */
export interface RedisClusterNode extends RedisClusterAdapter {
  /** Stops the heartbeat and drops the connections without any cleanup, as a SIGKILL would. */
  crash(): void;
  /** Resolves once no topic subscription is in flight. */
  settled(): Promise<void>;
}

const DEFAULT_CHANNEL = 'herald:broadcast';
const DEFAULT_PREFIX = 'herald:';
const DEFAULT_UNSUBSCRIBE_DELAY_MS = 3000;

/**
 * Creates the Redis scaling adapter of one node: broadcasts over one pub/sub channel (sharded in a Redis Cluster)
 * and keeps presence, channel counts, connections and cache channels in Redis, keyed by node, with a heartbeat.
 * A node whose heartbeat lapses is reaped by exactly one survivor, which sends each `member_removed` once.
 * @throws {ScalingRedisError} `invalid_options` for options that cannot work (e.g. a database in a Redis Cluster).
 * @example
 * ```ts
 * const cluster = createRedisCluster({ url: 'redis://127.0.0.1:6379', keyPrefix: 'herald:' });
 * const server = createRealtimeServer({ apps, cluster });
 * ```
 */
export function createRedisCluster(options: RedisClusterOptions = {}): RedisClusterAdapter {
  return createRedisClusterNode(options);
}

/** {@link createRedisCluster} with the crash switch tests need; not exported from the package. */
export function createRedisClusterNode(options: RedisClusterOptions = {}): RedisClusterNode {
  const heartbeatMs = options.heartbeatMs ?? 2000;
  const deadAfterMs = options.deadAfterMs ?? heartbeatMs * 3;
  if (!(heartbeatMs > 0) || !(deadAfterMs > heartbeatMs)) {
    throw new ScalingRedisError('invalid_options', 'deadAfterMs must be greater than heartbeatMs > 0');
  }
  const routingMode = options.routing ?? 'interest';
  if (routingMode !== 'interest' && routingMode !== 'broadcast') {
    throw new ScalingRedisError(
      'invalid_options',
      `routing must be 'interest' or 'broadcast', not ${String(routingMode)}`,
    );
  }
  const unsubscribeDelayMs = options.unsubscribeDelayMs ?? DEFAULT_UNSUBSCRIBE_DELAY_MS;
  if (!(unsubscribeDelayMs >= 0)) {
    throw new ScalingRedisError('invalid_options', 'unsubscribeDelayMs must be 0 or more');
  }
  const logger = options.logger ?? silentLogger;
  const nodeId = options.nodeId ?? randomBytes(8).toString('hex');
  const channelName = options.channel ?? DEFAULT_CHANNEL;
  const traffic = createTraffic();
  const context = createNodeContext({
    nodeId,
    keys: createKeys(options.keyPrefix ?? DEFAULT_PREFIX),
    logger,
    metrics: createNodeMetrics(options.registry, options.metrics ?? {}),
    channelName,
    heartbeatMs,
    deadAfterMs,
    // The link's events fire only once `start` has connected it, when every room below exists.
    link: (fail) =>
      createRedisLink(options, {
        error: (error) => fail('connection', error),
        reconnecting: () => logger.debug('redis reconnecting', { nodeId }),
        ready: () => {
          logger.info('redis connection ready again', { nodeId });
          context.stale = true;
          routing.restore();
          void heartbeat.tick();
        },
      }),
  });
  const { link } = context;
  const messaging = createMessaging(context, createRoute(routingMode, channelName));
  const routing = createRouting(context, {
    routing: routingMode,
    traffic,
    unsubscribeDelayMs,
    subscribeTimeoutMs: Math.round((options.timeout ?? 5) * 1000),
    receive: messaging.receive,
  });
  registerTrafficMetrics(options.registry, routing.stats);
  const connections = createConnections(context);
  const presence = createPresence(context, (appId, userId, delta) => routing.present(appId, userId, delta));
  const occupancy = createOccupancy(context, { messaging, connections, presence });
  const users = createUsers(context, { messaging, connections });
  const cached = createCachedEvents(context);
  const locks = createNodeLocks(context);
  const rooms = { messaging, connections, presence, occupancy, users, locks };
  const resync = createResync(context, rooms);
  const heartbeat = createHeartbeat(context, {
    ...rooms,
    async resync() {
      routing.restore();
      await resync();
      // The server's state may hold channels and users this adapter had not heard of (taken in by the resync).
      for (const [appId, channels] of occupancy.subscriptions) {
        for (const channel of channels.keys()) void routing.channel(appId, channel, true);
      }
      for (const [appId, userIds] of users.signedIn) {
        for (const userId of userIds) void routing.user(appId, userId, true);
      }
    },
  });
  let running = false;

  return {
    nodeId,

    async start(serverListener) {
      context.listener = serverListener;
      try {
        await link.connect();
        await link.subscribe(channelName, routing.listener);
      } catch (error) {
        context.listener = undefined;
        link.destroy();
        throw new ScalingRedisError('unavailable', 'Could not connect to Redis', { cause: error });
      }
      running = true;
      await heartbeat.start();
      logger.info('joined the cluster', { nodeId, channel: channelName, clusterMode: link.clusterMode });
    },

    async stop() {
      if (!running) return;
      running = false;
      await heartbeat.stop();
      try {
        await heartbeat.leave();
        logger.info('left the cluster', { nodeId });
      } catch (error) {
        context.fail('stop', error);
        logger.warn('could not remove this node share; survivors will reap it', { nodeId });
      }
      context.listener = undefined;
      routing.close();
      await link.close().catch(() => link.destroy());
    },

    crash() {
      running = false;
      heartbeat.halt();
      routing.close();
      context.listener = undefined;
      link.destroy();
    },

    broadcast: messaging.publish,
    admitConnection: connections.admit,
    releaseConnection: connections.release,
    joinPresence: presence.join,
    leavePresence: presence.leave,
    setLocalSubscriptions(appId, channel, count) {
      occupancy.setLocal(appId, channel, count);
      return routing.channel(appId, channel, count > 0);
    },
    setLocalUser(appId, userId, holds) {
      users.setLocal(appId, userId, holds);
      return routing.user(appId, userId, holds);
    },
    onlineUsers: users.online,
    storeCachedEvent: cached.store,
    cachedEvent: cached.read,
    channels: occupancy.channels,
    channel: occupancy.channel,
    presenceUsers: presence.users,
    presenceMembers: presence.members,
    connectionCount: connections.count,
    stats: routing.stats,
    settled: routing.settled,
  };
}
