import {
  type ChannelTraits,
  type ClientFrame,
  type ClusterAdapter,
  type ClusterChannelChange,
  type ClusterDelivery,
  type ClusterListener,
  createSocketIdGenerator,
  describeChannel,
  ErrorCode,
  encodeCacheMiss,
  encodeChannelEvent,
  encodeConnectionEstablished,
  encodeError,
  encodeMemberAdded,
  encodeMemberRemoved,
  encodePing,
  encodePong,
  encodeSigninSuccess,
  encodeSubscriptionCount,
  encodeSubscriptionError,
  encodeSubscriptionSucceeded,
  encodeWatchlistEvents,
  type FrameError,
  isOriginAllowed,
  type LocalClusterState,
  type LocalPresence,
  PresenceRoster,
  parseChannelData,
  parseClientFrame,
  parseUserData,
  type Result,
  SERVER_TO_USER_PREFIX,
  type SubscriptionErrorData,
  serverToUserChannel,
  validateChannelName,
  verifyChannelAuth,
  verifyUserAuth,
} from '@herald/protocol-core';
import { type RealtimeApp, type ResolvedApp, resolveApp } from './app.js';
import { ApplicationEventEmitter } from './application-events.js';
import { RealtimeServerError } from './errors.js';
import { type FastHttpHandler, type FetchHandler, handleWithFetch } from './http-bridge.js';
import { type Logger, silentLogger } from './logger.js';
import { ServerMetrics } from './metrics.js';
import { queryParam } from './query-param.js';
import { SocketRateLimiter } from './rate-limits.js';
import { selectTransport } from './transport/select.js';
import type {
  HttpExchange,
  TlsOptions,
  Transport,
  TransportName,
  TransportPreference,
  TransportSocket,
} from './transport/types.js';

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
   * Joins this server to a cluster (e.g. `createRedisCluster` from @herald/scaling-redis): broadcasts reach every
   * node, and presence, counts, connection limits and cache channels hold cluster-wide.
   */
  readonly cluster?: ClusterAdapter;
  /**
   * Called when a restart is requested through the cluster. Default: close every socket with 4200 and keep
   * serving. Apps pass a handler that also re-reads their config.
   */
  readonly onRestart?: () => void;
  readonly logger?: Logger;
}

/** What {@link RealtimeServer.publish} sends. */
export interface PublishRequest {
  readonly channels: readonly string[];
  readonly event: string;
  /** Forwarded byte for byte as the event's `data` string. */
  readonly data: string;
  /** This socket does not receive the event (Pusher's `socket_id` on trigger). */
  readonly excludeSocketId?: string;
}

/** An occupied channel as the REST API lists it. */
export interface ChannelSummary {
  readonly name: string;
  readonly subscriptionCount: number;
  /** Presence channels only: distinct users. */
  readonly userCount?: number;
}

/** What the REST API reports about one channel. */
export interface ChannelDetails {
  readonly occupied: boolean;
  readonly subscriptionCount: number;
  readonly userCount?: number;
  /** Cache channels holding an event: its data and the seconds it has left. */
  readonly cache?: { readonly event: string; readonly data: string; readonly ttl: number };
}

interface CachedEvent {
  readonly frame: string;
  readonly event: string;
  readonly data: string;
  readonly expiresAt: number;
}

interface ChannelState {
  subscribers: number;
  readonly roster: PresenceRoster | undefined;
}

interface AppMetrics {
  readonly connections: { inc(): void; dec(): void };
  readonly newConnections: { inc(): void };
  readonly disconnections: { inc(): void };
  readonly received: { inc(value?: number): void };
  readonly sent: { inc(value?: number): void };
  readonly bytesIn: { inc(value?: number): void };
  readonly bytesOut: { inc(value?: number): void };
  readonly subscriptions: { inc(): void; dec(): void };
}

interface AppState {
  /** Replaced in place when the app changes at run time: sockets hold the state, so they see the new config. */
  config: ResolvedApp;
  readonly topicPrefix: string;
  readonly sockets: Set<Socket>;
  readonly channels: Map<string, ChannelState>;
  readonly cache: Map<string, CachedEvent>;
  /** Signed-in users and their sockets. */
  readonly users: Map<string, Set<Socket>>;
  /** Watched user id → the signed-in sockets of this node whose watchlist names them. */
  readonly watchers: Map<string, Set<Socket>>;
  readonly metrics: AppMetrics;
  limiter: SocketRateLimiter;
  /** Channels with a subscription count update due, and the count each was last told. */
  readonly counts: SubscriptionCounts;
}

interface SubscriptionCounts {
  readonly due: Map<string, NodeJS.Timeout>;
  readonly told: Map<string, number>;
  /** Channels whose count changed on this node since their last update: this node reports them (webhooks). */
  readonly changedHere: Set<string>;
}

/** What {@link RealtimeServer.upsertApp} did with an app. */
export type AppChange = 'added' | 'updated' | 'disabled' | 'unchanged';

/** The app ids {@link RealtimeServer.setApps} added, changed, disabled (sockets closed) and removed. */
export interface AppChanges {
  readonly added: readonly string[];
  /** Changed apps whose sockets stay open (includes apps enabled again). */
  readonly updated: readonly string[];
  /** Apps that went from enabled to disabled: their sockets were closed with 4003. */
  readonly disabled: readonly string[];
  /** Apps no longer in the list: their sockets were closed with 4001. */
  readonly removed: readonly string[];
}

// Per-socket state stays small: a few scalars, the subscribed channel names and, only on presence channels,
// the user id each was joined as.
interface SocketData {
  readonly app: AppState | undefined;
  readonly rejection: { code: number; message: string } | undefined;
  readonly socketId: string;
  readonly origin: string | undefined;
  lastSeen: number;
  pingedAt: number;
  readonly channels: Set<string>;
  presence: Map<string, string> | undefined;
  userId: string | undefined;
  /** The signed-in user's watchlist, when it has one. */
  watchlist: readonly string[] | undefined;
  open: boolean;
  /** Set once `connection_established` was sent; frames before it are ignored. */
  established: boolean;
  /** Counted by the cluster, so its close must be uncounted there. */
  admitted: boolean;
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
   * Closes with 4009 every socket signed in as the user or present as them in a presence channel, on every node;
   * returns the number closed on this node.
   */
  terminateUser(appId: string, userId: string): number;
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

type Socket = TransportSocket<SocketData>;

/** A frame's text, decoded from a view of the transport's bytes (never a copy). */
function frameText(message: ArrayBuffer | Uint8Array): string {
  const bytes =
    message instanceof ArrayBuffer
      ? Buffer.from(message)
      : Buffer.from(message.buffer, message.byteOffset, message.byteLength);
  return bytes.toString('utf8');
}

const NO_CHANNELS: ReadonlySet<string> = new Set();
const APP_IN_PATH = /\/apps\/([^/?]+)/;

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
  const events = new ApplicationEventEmitter();
  const metrics = new ServerMetrics({ processMetrics: options.processMetrics ?? true });
  const path = (options.path ?? '').replace(/\/+$/, '');
  const fallbacks = {
    activityTimeout: options.activityTimeout ?? 120,
    pingInterval: options.pingInterval ?? 30,
  };
  const nextSocketId = createSocketIdGenerator(options.nodeNumber);
  const appsByKey = new Map<string, AppState>();
  const appsById = new Map<string, AppState>();
  const socketsById = new Map<string, Socket>();
  const cluster = options.cluster;
  const clusterFailed = (what: string) => (error: unknown) =>
    logger.warn(`cluster ${what} failed; serving from local state`, {
      scope: 'socket.server.cluster',
      error,
    });
  const reportListenerError = (error: unknown) => logger.error('application event listener threw', { error });

  // Apps are (re)loaded as a generation: topics carry it, so a reload never mixes old and new subscribers.
  let generation = 0;
  function loadApps(apps: readonly RealtimeApp[]): void {
    generation += 1;
    appsByKey.clear();
    appsById.clear();
    for (const raw of apps) addApp(resolveApp(raw, fallbacks));
  }

  // Every app state gets topics of its own, also one added at run time under an id that was removed before.
  let appSerial = 0;
  function addApp(config: ResolvedApp): void {
    appSerial += 1;
    const state: AppState = {
      config,
      topicPrefix: `${generation}.${appSerial}:`,
      sockets: new Set(),
      channels: new Map(),
      cache: new Map(),
      users: new Map(),
      watchers: new Map(),
      metrics: metrics.forApp(config.id),
      limiter: new SocketRateLimiter(config.connectionLimits, config.id),
      counts: { due: new Map(), told: new Map(), changedHere: new Set() },
    };
    appsByKey.set(config.key, state);
    appsById.set(config.id, state);
  }
  loadApps(options.apps);

  const maxMessageSize = Math.max(10_000, ...[...appsById.values()].map((app) => app.config.maxMessageSize));
  // Assigned once the handlers below exist; nothing publishes before listen().
  let transport: Transport;

  // ---- sending helpers -------------------------------------------------------------------------------------

  function send(ws: Socket, app: AppState, frame: string): void {
    const data = ws.getUserData();
    if (!data.open) return;
    ws.send(frame);
    app.metrics.sent.inc();
    app.metrics.bytesOut.inc(Buffer.byteLength(frame));
  }

  function sendError(ws: Socket, app: AppState, code: number, message: string): void {
    send(ws, app, encodeError(code, message));
  }

  function closeWith(ws: Socket, app: AppState | undefined, code: number, message: string): void {
    const data = ws.getUserData();
    if (!data.open) return;
    if (app) sendError(ws, app, code, message);
    else ws.send(encodeError(code, message));
    data.open = false;
    ws.end(code, message);
  }

  function refuseSubscription(ws: Socket, app: AppState, channel: string, error: SubscriptionErrorData) {
    logger.debug('subscription refused', {
      scope: 'socket.channel',
      appId: app.config.id,
      socketId: ws.getUserData().socketId,
      channel,
      reason: error.error,
    });
    send(ws, app, encodeSubscriptionError(channel, error));
  }

  function topicOf(app: AppState, channel: string): string {
    return app.topicPrefix + channel;
  }

  // ---- channels --------------------------------------------------------------------------------------------

  function channelState(app: AppState, channel: string, traits: ChannelTraits): ChannelState {
    let state = app.channels.get(channel);
    if (!state) {
      state = { subscribers: 0, roster: traits.presence ? new PresenceRoster() : undefined };
      app.channels.set(channel, state);
      events.emit('channelCreated', { appId: app.config.id, channel }, reportListenerError);
      // Alone, this node's first subscriber is the channel's first; in a cluster the adapter decides.
      if (!cluster) events.emit('channelOccupied', { appId: app.config.id, channel }, reportListenerError);
    }
    return state;
  }

  function subscribe(ws: Socket, app: AppState, frame: Extract<ClientFrame, { type: 'subscribe' }>) {
    const data = ws.getUserData();
    const { channel } = frame;
    const name = validateChannelName(channel, app.config.maxChannelNameLength);
    if (!name.ok) {
      refuseSubscription(ws, app, channel, {
        type: 'InvalidChannel',
        error: name.error.message,
        status: 400,
      });
      return;
    }
    const traits = describeChannel(channel);
    const existing = app.channels.get(channel);
    if (data.channels.has(channel)) {
      // Already subscribed (a client retrying): confirm again without joining twice.
      send(ws, app, encodeSubscriptionSucceeded(channel, existing?.roster?.snapshot()));
      return;
    }
    if (traits.kind === 'server-to-user') {
      if (data.userId === undefined || channel !== serverToUserChannel(data.userId)) {
        refuseSubscription(ws, app, channel, {
          type: 'AuthError',
          error: `Sign in as ${channel.slice(SERVER_TO_USER_PREFIX.length)} before subscribing to ${channel}`,
          status: 403,
        });
        return;
      }
    } else if (traits.requiresAuth) {
      const signed = verifyChannelAuth(app.config, frame.auth, {
        socketId: data.socketId,
        channel,
        channelData: traits.presence ? (frame.channelData ?? '') : undefined,
      });
      if (!signed) {
        refuseSubscription(ws, app, channel, {
          type: 'AuthError',
          error: `Invalid signature for ${channel}`,
          status: 401,
        });
        return;
      }
    }
    let member: { userId: string; userInfo: unknown } | undefined;
    if (traits.presence) {
      const parsed = parseChannelData(frame.channelData ?? '', {
        maxUserInfoBytes: app.config.maxPresenceMemberBytes,
      });
      if (!parsed.ok) {
        const tooLarge =
          parsed.error.reason === 'user_info_too_large' || parsed.error.reason === 'user_id_too_long';
        refuseSubscription(ws, app, channel, {
          type: tooLarge ? 'LimitReached' : 'InvalidChannel',
          error: parsed.error.message,
          status: 400,
        });
        return;
      }
      member = parsed.value;
      const roster = existing?.roster;
      if (
        !cluster &&
        roster &&
        !roster.hasUser(member.userId) &&
        roster.memberCount >= app.config.maxPresenceMembersPerChannel
      ) {
        refuseSubscription(ws, app, channel, {
          type: 'LimitReached',
          error: `Presence channel ${channel} has reached its limit of ${app.config.maxPresenceMembersPerChannel} members`,
          status: 403,
        });
        return;
      }
    }

    const state = channelState(app, channel, traits);
    const topic = topicOf(app, channel);
    ws.subscribe(topic);
    data.channels.add(channel);
    state.subscribers += 1;
    app.metrics.subscriptions.inc();
    // With interest routing, the node's first subscriber of a channel waits until the node receives its traffic.
    const routed = cluster?.setLocalSubscriptions(app.config.id, channel, state.subscribers);
    if (app.config.subscriptionCount) countChanged(app, channel, traits);
    if (member && state.roster) {
      if (!data.presence) data.presence = new Map();
      data.presence.set(channel, member.userId);
      const change = state.roster.join(data.socketId, member);
      if (cluster) {
        joinClusterPresence(ws, app, channel, member, change.type === 'member_added', routed);
        return;
      }
      send(ws, app, encodeSubscriptionSucceeded(channel, state.roster.snapshot()));
      if (change.type === 'member_added') announceMember(ws, app, channel, member);
    } else if (routed) {
      routed.then(
        guard('channel routing', () => {
          if (!data.open || !data.channels.has(channel)) return;
          send(ws, app, encodeSubscriptionSucceeded(channel));
          if (traits.cache) replayCache(ws, app, channel);
        }),
        clusterFailed('channel routing'),
      );
      return;
    } else {
      send(ws, app, encodeSubscriptionSucceeded(channel));
    }
    if (traits.cache) replayCache(ws, app, channel);
  }

  /** Sends member_added to every other subscriber in the cluster: ws.publish skips the joining socket. */
  function announceMember(
    ws: Socket,
    app: AppState,
    channel: string,
    member: { userId: string; userInfo: unknown },
  ): void {
    events.emit('memberAdded', { appId: app.config.id, channel, userId: member.userId }, reportListenerError);
    const topic = topicOf(app, channel);
    const added = encodeMemberAdded(channel, member.userId, member.userInfo);
    ws.publish(topic, added);
    countBroadcast(app, topic, added, 1);
    cluster?.broadcast({
      type: 'deliver',
      delivery: { appId: app.config.id, channel, frame: added, excludeSocketId: ws.getUserData().socketId },
    });
  }

  function joinClusterPresence(
    ws: Socket,
    app: AppState,
    channel: string,
    member: { userId: string; userInfo: unknown },
    newLocally: boolean,
    routed: void | Promise<void>,
  ): void {
    const data = ws.getUserData();
    const clustered = cluster as ClusterAdapter;
    const joined = clustered.joinPresence({
      appId: app.config.id,
      channel,
      socketId: data.socketId,
      member,
      maxMembers: app.config.maxPresenceMembersPerChannel,
    });
    // The routing promise never rejects, so a failed join still reaches the fallback below.
    (routed ? routed.then(() => joined) : joined).then(
      guard('presence join', (result: Awaited<ReturnType<ClusterAdapter['joinPresence']>>) => {
        if (!data.open || !data.channels.has(channel)) return;
        if (!result.accepted) {
          leave(ws, app, channel, false, { local: true });
          refuseSubscription(ws, app, channel, {
            type: 'LimitReached',
            error: `Presence channel ${channel} has reached its limit of ${app.config.maxPresenceMembersPerChannel} members`,
            status: 403,
          });
          return;
        }
        send(ws, app, encodeSubscriptionSucceeded(channel, result.snapshot));
        if (result.added) announceMember(ws, app, channel, member);
        if (describeChannel(channel).cache) replayCache(ws, app, channel);
      }),
      (error: unknown) => {
        // Redis is away: answer from this node's roster; the adapter rebuilds the cluster share on reconnect.
        clusterFailed('presence join')(error);
        if (!data.open || !data.channels.has(channel)) return;
        const roster = app.channels.get(channel)?.roster;
        send(ws, app, encodeSubscriptionSucceeded(channel, roster?.snapshot()));
        if (newLocally) announceMember(ws, app, channel, member);
      },
    );
  }

  /** Replays the cached event, or says `pusher:cache_miss` (and raises `cacheMiss`) when there is none. */
  function sendCached(
    ws: Socket,
    app: AppState,
    channel: string,
    cached: { frame: string } | undefined,
  ): void {
    if (cached) {
      send(ws, app, cached.frame);
      return;
    }
    send(ws, app, encodeCacheMiss(channel));
    events.emit('cacheMiss', { appId: app.config.id, channel }, reportListenerError);
  }

  function replayCache(ws: Socket, app: AppState, channel: string): void {
    if (!cluster) {
      const cached = freshCache(app, channel);
      sendCached(ws, app, channel, cached);
      return;
    }
    const data = ws.getUserData();
    cluster.cachedEvent(app.config.id, channel).then(
      guard('cache replay', (cached: Awaited<ReturnType<ClusterAdapter['cachedEvent']>>) => {
        if (!data.open || !data.channels.has(channel)) return;
        sendCached(ws, app, channel, cached);
      }),
      (error: unknown) => {
        clusterFailed('cache read')(error);
        if (!data.open || !data.channels.has(channel)) return;
        const cached = freshCache(app, channel);
        sendCached(ws, app, channel, cached);
      },
    );
  }

  /**
   * Removes a socket from a channel. `local` undoes a subscription the cluster refused: nothing is announced and
   * the cluster's presence is not touched.
   */
  function leave(
    ws: Socket,
    app: AppState,
    channel: string,
    closing: boolean,
    options: { local?: boolean } = {},
  ): void {
    const data = ws.getUserData();
    if (!data.channels.delete(channel)) return;
    const topic = topicOf(app, channel);
    if (!closing) ws.unsubscribe(topic);
    app.metrics.subscriptions.dec();
    const state = app.channels.get(channel);
    if (!state) return;
    state.subscribers -= 1;
    cluster?.setLocalSubscriptions(app.config.id, channel, Math.max(0, state.subscribers));
    if (app.config.subscriptionCount) countChanged(app, channel, describeChannel(channel));
    if (state.roster) {
      data.presence?.delete(channel);
      const change = state.roster.leave(data.socketId);
      if (cluster && !options.local) {
        cluster.leavePresence(app.config.id, channel, data.socketId).then(
          guard('presence leave', (result: Awaited<ReturnType<ClusterAdapter['leavePresence']>>) => {
            if (result.removed && result.userId !== undefined) announceRemoval(app, channel, result.userId);
          }),
          clusterFailed('presence leave'),
        );
      } else if (!cluster && change.type === 'member_removed') {
        announceRemoval(app, channel, change.userId);
      }
    }
    if (state.subscribers <= 0) {
      app.channels.delete(channel);
      events.emit('channelRemoved', { appId: app.config.id, channel }, reportListenerError);
      if (!cluster) events.emit('channelVacated', { appId: app.config.id, channel }, reportListenerError);
    }
  }

  function announceRemoval(app: AppState, channel: string, userId: string): void {
    events.emit('memberRemoved', { appId: app.config.id, channel, userId }, reportListenerError);
    const frame = encodeMemberRemoved(channel, userId);
    const topic = topicOf(app, channel);
    transport.publish(topic, frame);
    countBroadcast(app, topic, frame, 0);
    cluster?.broadcast({ type: 'deliver', delivery: { appId: app.config.id, channel, frame } });
  }

  // ---- subscription counts ---------------------------------------------------------------------------------
  // Throttled, trailing: a change (here, or told by another node) schedules one update of the channel after the
  // app's interval; the count is read when the update goes out, so a burst of joins costs one frame per interval
  // and the last frame always carries the count after the burst. Each node tells its own subscribers.

  function countChanged(app: AppState, channel: string, traits: ChannelTraits): void {
    if (!app.config.subscriptionCount || traits.presence) return;
    if (cluster) cluster.broadcast({ type: 'count', appId: app.config.id, channel });
    app.counts.changedHere.add(channel);
    scheduleCount(app, channel);
  }

  function scheduleCount(app: AppState, channel: string): void {
    if (app.counts.due.has(channel)) return;
    const timer = setTimeout(() => {
      app.counts.due.delete(channel);
      sendCount(app, channel);
    }, app.config.subscriptionCountIntervalMs);
    timer.unref();
    app.counts.due.set(channel, timer);
  }

  function sendCount(app: AppState, channel: string): void {
    const local = app.channels.get(channel)?.subscribers ?? 0;
    const report = app.counts.changedHere.delete(channel);
    if (local <= 0) {
      app.counts.told.delete(channel);
      // The last local subscriber left: the count others see is told by them; alone, the channel is vacated.
      if (report && cluster) reportCount(app, channel);
      return;
    }
    const tell = (count: number) => {
      // The app may have been reloaded meanwhile: only its current state is told.
      if (appsById.get(app.config.id) !== app || !app.channels.has(channel)) return;
      if (report)
        events.emit('subscriptionCount', { appId: app.config.id, channel, count }, reportListenerError);
      if (app.counts.told.get(channel) === count) return;
      app.counts.told.set(channel, count);
      const frame = encodeSubscriptionCount(channel, count);
      const topic = topicOf(app, channel);
      transport.publish(topic, frame);
      countBroadcast(app, topic, frame, 0);
    };
    if (!cluster) {
      tell(local);
      return;
    }
    cluster.channel(app.config.id, channel).then(
      guard('subscription count', (counts: Awaited<ReturnType<ClusterAdapter['channel']>>) =>
        tell(Math.max(counts.subscriptionCount, local)),
      ),
      (error: unknown) => {
        clusterFailed('subscription count')(error);
        tell(local);
      },
    );
  }

  /** A node with no subscribers left still reports the count its change left behind (for webhooks). */
  function reportCount(app: AppState, channel: string): void {
    if (!events.has('subscriptionCount') || !cluster) return;
    cluster.channel(app.config.id, channel).then(
      guard('subscription count', (counts: Awaited<ReturnType<ClusterAdapter['channel']>>) => {
        if (counts.subscriptionCount > 0) {
          events.emit(
            'subscriptionCount',
            { appId: app.config.id, channel, count: counts.subscriptionCount },
            reportListenerError,
          );
        }
      }),
      clusterFailed('subscription count'),
    );
  }

  /** Sends an encoded frame to this node's subscribers of a channel, skipping one socket if it is here. */
  function deliverLocal(app: AppState, channel: string, frame: string, excludeSocketId?: string): number {
    const topic = topicOf(app, channel);
    const excluded = excludeSocketId ? socketsById.get(excludeSocketId) : undefined;
    const excludedData = excluded?.getUserData();
    if (excluded && excludedData?.app === app && excludedData.channels.has(channel)) {
      // Publishing through the excluded socket is uWS's native way of skipping exactly that socket.
      excluded.publish(topic, frame);
      return countBroadcast(app, topic, frame, 1);
    }
    transport.publish(topic, frame);
    return countBroadcast(app, topic, frame, 0);
  }

  function freshCache(app: AppState, channel: string): CachedEvent | undefined {
    const cached = app.cache.get(channel);
    if (!cached) return undefined;
    if (cached.expiresAt <= Date.now()) {
      app.cache.delete(channel);
      return undefined;
    }
    return cached;
  }

  function countBroadcast(app: AppState, topic: string, frame: string, excluded: number): number {
    const recipients = Math.max(0, transport.numSubscribers(topic) - excluded);
    if (recipients > 0) {
      app.metrics.sent.inc(recipients);
      app.metrics.bytesOut.inc(recipients * Buffer.byteLength(frame));
    }
    return recipients;
  }

  // ---- client events and sign-in ---------------------------------------------------------------------------

  function clientEvent(ws: Socket, app: AppState, frame: Extract<ClientFrame, { type: 'client-event' }>) {
    const data = ws.getUserData();
    const { channel, event } = frame;
    const refusal = clientEventRefusal(ws, app, frame);
    if (refusal !== undefined) {
      logger.debug('client event refused', {
        scope: 'socket.handler',
        appId: app.config.id,
        socketId: data.socketId,
        channel,
        reason: refusal,
      });
      sendError(ws, app, ErrorCode.ClientEventRejected, refusal);
      return;
    }
    const traits = describeChannel(channel);
    const userId = data.presence?.get(channel);
    const encoded = encodeChannelEvent({
      event,
      channel,
      data: frame.data,
      userId: traits.presence ? userId : undefined,
    });
    const topic = topicOf(app, channel);
    ws.publish(topic, encoded);
    const recipients = countBroadcast(app, topic, encoded, 1);
    cluster?.broadcast({
      type: 'deliver',
      delivery: { appId: app.config.id, channel, frame: encoded, excludeSocketId: data.socketId },
    });
    if (events.has('messageSent')) {
      events.emit('messageSent', { appId: app.config.id, channel, event, recipients }, reportListenerError);
    }
    if (events.has('clientEvent')) {
      const payload = typeof frame.data === 'string' ? frame.data : JSON.stringify(frame.data ?? null);
      events.emit(
        'clientEvent',
        { appId: app.config.id, channel, event, data: payload, socketId: data.socketId, userId },
        reportListenerError,
      );
    }
  }

  /** Why a client event is refused, or undefined when it may be relayed. */
  function clientEventRefusal(
    ws: Socket,
    app: AppState,
    frame: Extract<ClientFrame, { type: 'client-event' }>,
  ): string | undefined {
    const data = ws.getUserData();
    const { channel, event } = frame;
    if (app.config.clientEvents === 'none') return 'Client events are not enabled for this app';
    const traits = describeChannel(channel);
    if (!traits.clientEvents) return `Client events are not allowed on ${traits.kind} channels`;
    if (!data.channels.has(channel)) return `Subscribe to ${channel} before sending client events on it`;
    // `all` and `members` (the spec's "members of the channel") both mean: subscribed to it. The subscription is
    // what authorized the private or presence channel, so no user identity is asked for on top.
    if (event.length > app.config.maxEventNameLength) {
      return `Event name is longer than ${app.config.maxEventNameLength} characters`;
    }
    // Pusher's limit applies to the data, in bytes (string length would let multi-byte text through at 3x).
    const payload = typeof frame.data === 'string' ? frame.data : JSON.stringify(frame.data ?? null);
    if (Buffer.byteLength(payload) > app.config.maxEventPayloadBytes) {
      return `Event data is larger than ${app.config.maxEventPayloadBytes} bytes`;
    }
    return undefined;
  }

  function signin(ws: Socket, app: AppState, frame: Extract<ClientFrame, { type: 'signin' }>) {
    const data = ws.getUserData();
    if (!verifyUserAuth(app.config, frame.auth, data.socketId, frame.userData)) {
      closeWith(ws, app, ErrorCode.Unauthorized, 'Invalid signature for pusher:signin');
      return;
    }
    const user = parseUserData(frame.userData);
    if (!user.ok) {
      // A watchlist over the limit (or malformed) refuses the sign-in but keeps the socket, as other errors do.
      if (user.error.reason === 'bad_watchlist')
        sendError(ws, app, ErrorCode.GenericError, user.error.message);
      else closeWith(ws, app, ErrorCode.Unauthorized, user.error.message);
      return;
    }
    if (data.userId !== undefined) forgetUser(app, ws, data.userId);
    const userId = user.value.id;
    data.userId = userId;
    const sockets = app.users.get(userId) ?? new Set();
    sockets.add(ws);
    app.users.set(userId, sockets);
    if (sockets.size === 1) userSignedIn(app, userId, true);
    send(ws, app, encodeSigninSuccess(frame.userData));
    if (user.value.watchlist.length > 0) watch(ws, app, user.value.watchlist);
  }

  function forgetUser(app: AppState, ws: Socket, userId: string): void {
    unwatch(ws, app);
    const sockets = app.users.get(userId);
    if (!sockets) return;
    sockets.delete(ws);
    if (sockets.size > 0) return;
    app.users.delete(userId);
    userSignedIn(app, userId, false);
  }

  // ---- watchlists ------------------------------------------------------------------------------------------
  // A user is online while any of their sockets is signed in on any node. Alone, this node decides; in a cluster
  // the adapter does, once, and tells every node (`userChanged`).

  function userSignedIn(app: AppState, userId: string, online: boolean): void {
    if (cluster?.setLocalUser) cluster.setLocalUser(app.config.id, userId, online);
    else tellWatchers(app, userId, online);
  }

  function tellWatchers(app: AppState, userId: string, online: boolean): void {
    const watching = app.watchers.get(userId);
    if (!watching) return;
    const frame = encodeWatchlistEvents([{ name: online ? 'online' : 'offline', user_ids: [userId] }]);
    for (const ws of watching) send(ws, app, frame);
  }

  /** Registers a signed-in socket's watchlist and tells it which watched users are online now. */
  function watch(ws: Socket, app: AppState, watchlist: readonly string[]): void {
    const data = ws.getUserData();
    data.watchlist = watchlist;
    for (const userId of watchlist) {
      const watching = app.watchers.get(userId) ?? new Set<Socket>();
      watching.add(ws);
      app.watchers.set(userId, watching);
    }
    const tell = (online: readonly string[]) => {
      if (!data.open || data.watchlist !== watchlist || online.length === 0) return;
      send(ws, app, encodeWatchlistEvents([{ name: 'online', user_ids: online }]));
    };
    const local = () => watchlist.filter((userId) => app.users.has(userId));
    if (!cluster?.onlineUsers) {
      tell(local());
      return;
    }
    cluster.onlineUsers(app.config.id, watchlist).then(guard('watchlist', tell), (error: unknown) => {
      clusterFailed('watchlist')(error);
      tell(local());
    });
  }

  function unwatch(ws: Socket, app: AppState): void {
    const data = ws.getUserData();
    if (!data.watchlist) return;
    for (const userId of data.watchlist) {
      const watching = app.watchers.get(userId);
      if (!watching) continue;
      watching.delete(ws);
      if (watching.size === 0) app.watchers.delete(userId);
    }
    data.watchlist = undefined;
  }

  // ---- socket lifecycle ------------------------------------------------------------------------------------

  function refusal(app: AppState | undefined, origin: string, query: string): SocketData['rejection'] {
    if (!app) return { code: ErrorCode.AppNotFound, message: 'No application has this key' };
    if (!app.config.enabled) return { code: ErrorCode.AppDisabled, message: 'Application is disabled' };
    if (!isOriginAllowed(origin || undefined, app.config.allowedOrigins)) {
      return { code: ErrorCode.Unauthorized, message: `Origin ${origin || '(none)'} is not allowed` };
    }
    const protocol = queryParam(query, 'protocol');
    if (protocol !== null && protocol !== '7') {
      return {
        code: ErrorCode.UnsupportedProtocol,
        message: `Protocol version ${protocol} is not supported; use 7`,
      };
    }
    return undefined;
  }

  function establish(ws: Socket, app: AppState): void {
    if (!stillServed(ws, app)) return;
    const data = ws.getUserData();
    (data as { channels: Set<string> }).channels = new Set();
    data.established = true;

    app.sockets.add(ws);
    socketsById.set(data.socketId, ws);
    app.metrics.connections.inc();
    app.metrics.newConnections.inc();
    send(ws, app, encodeConnectionEstablished(data.socketId, app.config.activityTimeout));
    logger.debug('connection established', {
      scope: 'socket.connection',
      appId: app.config.id,
      socketId: data.socketId,
    });
    if (events.has('connectionEstablished')) {
      events.emit(
        'connectionEstablished',
        { appId: app.config.id, socketId: data.socketId, origin: data.origin },
        reportListenerError,
      );
    }
  }

  function onMessage(ws: Socket, message: ArrayBuffer | Uint8Array): void {
    const data = ws.getUserData();
    const app = data.app;
    if (!app || !data.open || !data.established) return;
    data.lastSeen = Date.now();
    data.pingedAt = 0;
    app.metrics.received.inc();
    app.metrics.bytesIn.inc(message.byteLength);
    if (message.byteLength > app.config.maxMessageSize) {
      closeWith(
        ws,
        app,
        ErrorCode.Unauthorized,
        `Message of ${message.byteLength} bytes exceeds max_message_size (${app.config.maxMessageSize})`,
      );
      return;
    }
    const parsed = parseClientFrame(frameText(message));
    if (!app.limiter.active) {
      dispatch(ws, app, parsed);
      return;
    }
    // Every frame takes the same asynchronous path while limits are on, so frames keep their order.
    const clientEvent = parsed.ok && parsed.value.type === 'client-event';
    app.limiter.take(data.socketId, clientEvent).then(
      guard('rate limit', (hit: Awaited<ReturnType<SocketRateLimiter['take']>>) => {
        if (!data.open) return;
        if (hit === undefined) {
          dispatch(ws, app, parsed);
          return;
        }
        const what = hit === 'messages' ? 'messages' : 'client events';
        sendError(ws, app, ErrorCode.ClientEventRejected, `Too many ${what} per second from this connection`);
        if (hit === 'messages' && app.limiter.terminateOnLimit) {
          closeWith(ws, app, ErrorCode.Unauthorized, 'Connection closed for sending too many messages');
        }
      }),
      (error: unknown) => logger.error('rate limiter failed', { error, appId: app.config.id }),
    );
  }

  function dispatch(ws: Socket, app: AppState, parsed: Result<ClientFrame, FrameError>): void {
    if (!parsed.ok) {
      sendError(ws, app, ErrorCode.GenericError, parsed.error.message);
      return;
    }
    const frame = parsed.value;
    const data = ws.getUserData();
    if (events.has('messageReceived')) {
      events.emit(
        'messageReceived',
        {
          appId: app.config.id,
          socketId: data.socketId,
          event: frame.type === 'client-event' ? frame.event : `pusher:${frame.type}`,
          channel: 'channel' in frame ? frame.channel : undefined,
        },
        reportListenerError,
      );
    }
    switch (frame.type) {
      case 'ping':
        send(ws, app, encodePong());
        break;
      case 'pong':
        break;
      case 'subscribe':
        subscribe(ws, app, frame);
        break;
      case 'unsubscribe':
        leave(ws, app, frame.channel, false);
        break;
      case 'signin':
        signin(ws, app, frame);
        break;
      case 'client-event':
        clientEvent(ws, app, frame);
        break;
    }
  }

  function guard<A extends unknown[]>(where: string, fn: (...args: A) => void): (...args: A) => void {
    return (...args: A) => {
      try {
        fn(...args);
      } catch (error) {
        // A bug in one handler must not take the process or the other sockets down.
        logger.error(`unexpected error in ${where}`, { error });
      }
    };
  }

  let httpFastPath: FastHttpHandler | undefined = options.httpFastPath;
  let httpHandler: FetchHandler =
    options.httpHandler ??
    (() =>
      new Response('{"error":"Not found"}', {
        status: 404,
        headers: { 'content-type': 'application/json' },
      }));

  transport = selected.create<SocketData>({
    upgradePrefix: `${path}/app/`,
    tls: options.tls,
    maxPayloadLength: maxMessageSize * 4,
    maxBackpressure: 1024 * 1024,
    handlers: {
      upgrade: ({ key, origin, query }) => {
        const app = appsByKey.get(key);
        return {
          app,
          rejection: refusal(app, origin, query),
          socketId: nextSocketId(),
          origin: origin || undefined,
          lastSeen: Date.now(),
          pingedAt: 0,
          channels: NO_CHANNELS as Set<string>,
          presence: undefined,
          userId: undefined,
          watchlist: undefined,
          open: true,
          established: false,
          admitted: false,
        };
      },
      open: guard('open', (ws: Socket) => {
        const data = ws.getUserData();
        const app = data.app;
        if (closing || draining) {
          closeWith(
            ws,
            app,
            ErrorCode.Reconnect,
            draining ? 'Server is shutting down' : 'Server is restarting',
          );
          return;
        }
        if (!app || data.rejection) {
          const rejection = data.rejection ?? {
            code: ErrorCode.AppNotFound,
            message: 'No application has this key',
          };
          logger.debug('connection refused', {
            scope: 'socket.connection',
            appId: app?.config.id,
            code: rejection.code,
            origin: data.origin,
          });
          closeWith(ws, undefined, rejection.code, rejection.message);
          return;
        }
        if (cluster) {
          cluster.admitConnection(app.config.id, app.config.maxConnections).then(
            guard('admission', (admitted: boolean) => {
              if (!data.open) {
                if (admitted) cluster.releaseConnection(app.config.id);
                return;
              }
              if (!admitted) {
                closeWith(
                  ws,
                  undefined,
                  ErrorCode.OverConnectionQuota,
                  'Application is over its connection quota',
                );
                return;
              }
              data.admitted = true;
              establish(ws, app);
            }),
            (error: unknown) => {
              // Without Redis the node still serves: it counts the connection locally only.
              clusterFailed('admission')(error);
              if (!data.open) return;
              if (app.sockets.size >= app.config.maxConnections) {
                closeWith(
                  ws,
                  undefined,
                  ErrorCode.OverConnectionQuota,
                  'Application is over its connection quota',
                );
                return;
              }
              establish(ws, app);
            },
          );
          return;
        }
        if (app.sockets.size >= app.config.maxConnections) {
          closeWith(ws, undefined, ErrorCode.OverConnectionQuota, 'Application is over its connection quota');
          return;
        }
        establish(ws, app);
      }),
      message: guard('message', (ws: Socket, message: ArrayBuffer | Uint8Array) => onMessage(ws, message)),
      activity: guard('activity', (ws: Socket) => {
        const data = ws.getUserData();
        data.lastSeen = Date.now();
        data.pingedAt = 0;
      }),
      close: guard('close', (ws: Socket, code: number) => {
        const data = ws.getUserData();
        data.open = false;
        const app = data.app;
        if (!app?.sockets.delete(ws)) return;
        socketsById.delete(data.socketId);
        for (const channel of [...data.channels]) leave(ws, app, channel, true);
        if (data.userId !== undefined) forgetUser(app, ws, data.userId);
        app.metrics.connections.dec();
        app.metrics.disconnections.inc();
        if (data.admitted) cluster?.releaseConnection(app.config.id);
        logger.debug('connection closed', {
          scope: 'socket.connection',
          appId: app.config.id,
          socketId: data.socketId,
          code,
        });
        if (events.has('connectionClosed')) {
          events.emit(
            'connectionClosed',
            { appId: app.config.id, socketId: data.socketId, code },
            reportListenerError,
          );
        }
      }),
      http: guard('http', (exchange: HttpExchange) => http(exchange)),
    },
  });

  function http(exchange: HttpExchange): void {
    handleWithFetch(exchange, {
      handler: (request) => httpHandler(request),
      fastPath: httpFastPath ? (request) => (httpFastPath as FastHttpHandler)(request) : undefined,
      maxBodyBytes: options.maxRequestSize ?? 10_000,
      scheme: options.tls ? 'https' : 'http',
      onError: (error) => logger.error('HTTP handler failed', { error }),
      onComplete: ({ status, bytesIn, bytesOut, path: requestPath, method }) => {
        const appId = APP_IN_PATH.exec(requestPath)?.[1];
        const label = { app_id: appId ?? '' };
        metrics.httpCalls.inc(label);
        metrics.httpBytesReceived.inc(label, bytesIn);
        metrics.httpBytesSent.inc(label, bytesOut);
        if (events.has('httpApiEvent')) {
          events.emit('httpApiEvent', { appId, method, path: requestPath, status }, reportListenerError);
        }
      },
    });
  }

  // ---- activity sweep --------------------------------------------------------------------------------------

  function sweep(): void {
    const now = Date.now();
    for (const app of appsById.values()) {
      const idleMs = app.config.activityTimeout * 1000;
      const graceMs = app.config.pingInterval * 1000;
      for (const ws of app.sockets) {
        const data = ws.getUserData();
        if (data.pingedAt > 0) {
          if (now - data.pingedAt >= graceMs)
            closeWith(ws, app, ErrorCode.PongNotReceived, 'Pong reply not received');
        } else if (now - data.lastSeen >= idleMs) {
          data.pingedAt = now;
          send(ws, app, encodePing());
        }
      }
    }
  }

  let listening = false;
  let draining = false;
  let boundPort: number | undefined;
  let sweepTimer: NodeJS.Timeout | undefined;
  let closing = false;

  function dropConnections(message: string): void {
    for (const app of appsById.values()) {
      for (const ws of [...app.sockets]) closeWith(ws, app, ErrorCode.Reconnect, message);
    }
  }

  function terminateLocal(appId: string, userId: string): number {
    const app = appsById.get(appId);
    if (!app) return 0;
    const targets = new Set(app.users.get(userId));
    for (const ws of app.sockets) {
      const presence = ws.getUserData().presence;
      if (presence && [...presence.values()].includes(userId)) targets.add(ws);
    }
    for (const ws of targets)
      closeWith(ws, app, ErrorCode.Unauthorized, 'Connection terminated by the application');
    return targets.size;
  }

  function localState(): LocalClusterState {
    const connections: Array<{ appId: string; count: number }> = [];
    const subscriptions: Array<{ appId: string; channel: string; count: number }> = [];
    const presence: LocalPresence[] = [];
    for (const app of appsById.values()) {
      const appId = app.config.id;
      connections.push({ appId, count: app.sockets.size });
      for (const [channel, state] of app.channels) {
        subscriptions.push({ appId, channel, count: state.subscribers });
        if (!state.roster) continue;
        const { hash } = state.roster.snapshot();
        for (const ws of app.sockets) {
          const data = ws.getUserData();
          const userId = data.presence?.get(channel);
          if (userId !== undefined) {
            presence.push({
              appId,
              channel,
              socketId: data.socketId,
              member: { userId, userInfo: hash[userId] },
            });
          }
        }
      }
    }
    return { connections, subscriptions, presence };
  }

  function sweepEveryMs(): number {
    const intervals = [...appsById.values()].map((app) => app.config.pingInterval);
    return Math.max(250, Math.min(fallbacks.pingInterval, ...intervals) * 1000);
  }

  let sweepEvery = 0;
  function startSweep(): void {
    if (sweepTimer) clearInterval(sweepTimer);
    sweepEvery = sweepEveryMs();
    sweepTimer = setInterval(guard('sweep', sweep), sweepEvery);
    sweepTimer.unref();
  }

  const clusterListener: ClusterListener = {
    deliver: guard('cluster delivery', (delivery: ClusterDelivery) => {
      const app = appsById.get(delivery.appId);
      if (!app) return;
      deliverLocal(app, delivery.channel, delivery.frame, delivery.excludeSocketId);
    }),
    terminate: guard('cluster terminate', (appId: string, userId: string) => {
      terminateLocal(appId, userId);
    }),
    restart: guard('cluster restart', () => {
      logger.info('restart requested through the cluster', { scope: 'socket.server.restart' });
      if (options.onRestart) options.onRestart();
      else dropConnections('Server is restarting');
    }),
    localState,
    userChanged: guard('cluster user change', (appId: string, userId: string, online: boolean) => {
      const app = appsById.get(appId);
      if (app) tellWatchers(app, userId, online);
    }),
    countChanged: guard('cluster count change', (appId: string, channel: string) => {
      const app = appsById.get(appId);
      if (app?.config.subscriptionCount && app.channels.has(channel)) scheduleCount(app, channel);
    }),
    channelChanged: guard('cluster channel change', (change: ClusterChannelChange) => {
      if (!appsById.has(change.appId)) return;
      const { appId, channel } = change;
      if (change.type === 'occupied') events.emit('channelOccupied', { appId, channel }, reportListenerError);
      else if (change.type === 'vacated')
        events.emit('channelVacated', { appId, channel }, reportListenerError);
      else events.emit('memberRemoved', { appId, channel, userId: change.userId }, reportListenerError);
    }),
  };

  // ---- apps changed at run time ------------------------------------------------------------------------------

  // Restarted only when the interval changes: apps that change more often than it would otherwise never be swept.
  function adjustSweep(): void {
    if (listening && sweepEveryMs() !== sweepEvery) startSweep();
  }

  /**
   * Whether a socket admitted asynchronously (cluster admission) may still be established: its app may have been
   * disabled or removed meanwhile. If not, the socket is closed and its cluster admission given back.
   */
  function stillServed(ws: Socket, app: AppState): boolean {
    const removed = appsById.get(app.config.id) !== app;
    if (!removed && app.config.enabled) return true;
    const data = ws.getUserData();
    if (data.admitted) {
      data.admitted = false;
      cluster?.releaseConnection(app.config.id);
    }
    if (removed) closeWith(ws, undefined, ErrorCode.AppNotFound, 'No application has this key');
    else closeWith(ws, undefined, ErrorCode.AppDisabled, 'Application is disabled');
    return false;
  }

  function closeAppSockets(app: AppState, code: number, message: string): void {
    for (const ws of [...app.sockets]) closeWith(ws, app, code, message);
  }

  function applyApp(config: ResolvedApp): AppChange {
    const existing = appsById.get(config.id);
    if (!existing) {
      addApp(config);
      logger.info('app added', { scope: 'socket.server.apps', appId: config.id });
      return 'added';
    }
    const before = existing.config;
    if (JSON.stringify(before) === JSON.stringify(config)) return 'unchanged';
    if (before.key !== config.key) {
      if (appsByKey.get(before.key) === existing) appsByKey.delete(before.key);
      appsByKey.set(config.key, existing);
    }
    if (JSON.stringify(before.connectionLimits) !== JSON.stringify(config.connectionLimits)) {
      existing.limiter = new SocketRateLimiter(config.connectionLimits, config.id);
    }
    existing.config = config;
    if (before.enabled && !config.enabled) {
      closeAppSockets(existing, ErrorCode.AppDisabled, 'Application is disabled');
      logger.info('app disabled', { scope: 'socket.server.apps', appId: config.id });
      return 'disabled';
    }
    logger.info('app updated', { scope: 'socket.server.apps', appId: config.id });
    return 'updated';
  }

  function removeApp(appId: string): boolean {
    const app = appsById.get(appId);
    if (!app) return false;
    appsById.delete(appId);
    if (appsByKey.get(app.config.key) === app) appsByKey.delete(app.config.key);
    // Each socket still holds the state, so its close handler cleans up channels and cluster counts as usual.
    closeAppSockets(app, ErrorCode.AppNotFound, 'Application was removed');
    app.cache.clear();
    logger.info('app removed', { scope: 'socket.server.apps', appId });
    return true;
  }

  function duplicateOf(configs: readonly ResolvedApp[]): string | undefined {
    for (const field of ['id', 'key'] as const) {
      const seen = new Set<string>();
      for (const config of configs) {
        if (seen.has(config[field])) return `two apps have the ${field} "${config[field]}"`;
        seen.add(config[field]);
      }
    }
    return undefined;
  }

  function setApps(apps: readonly RealtimeApp[]): AppChanges {
    const configs = apps.map((raw) => resolveApp(raw, fallbacks));
    const duplicate = duplicateOf(configs);
    if (duplicate) throw new RealtimeServerError('invalid_options', `setApps: ${duplicate}`);
    const wanted = new Set(configs.map((config) => config.id));
    const changes = {
      added: [] as string[],
      updated: [] as string[],
      disabled: [] as string[],
      removed: [] as string[],
    };
    for (const appId of [...appsById.keys()]) {
      if (!wanted.has(appId) && removeApp(appId)) changes.removed.push(appId);
    }
    for (const config of configs) {
      const change = applyApp(config);
      if (change !== 'unchanged')
        changes[change === 'added' ? 'added' : change === 'disabled' ? 'disabled' : 'updated'].push(
          config.id,
        );
    }
    // Keys may have moved between apps in one change: index them again from the apps as they now are.
    appsByKey.clear();
    for (const app of appsById.values()) appsByKey.set(app.config.key, app);
    adjustSweep();
    return changes;
  }

  const server: RealtimeServer = {
    get port() {
      return boundPort;
    },
    native,
    transport: { name: selected.name, reason: selected.reason },
    events,
    metrics,

    async listen() {
      if (cluster) await cluster.start(clusterListener);
      const host = options.host ?? '0.0.0.0';
      const port = options.port ?? 8080;
      boundPort = await transport.listen(host, port);
      listening = true;
      startSweep();
      logger.info('listening', {
        host,
        port: boundPort,
        transport: selected.name,
        native,
        nodeId: cluster?.nodeId,
      });
      return boundPort;
    },

    async close() {
      closing = true;
      if (sweepTimer) clearInterval(sweepTimer);
      if (listening) transport.stopListening();
      listening = false;
      dropConnections('Server is shutting down');
      if (cluster) {
        await cluster.stop().catch((error: unknown) => logger.warn('cluster stop failed', { error }));
      }
    },

    dropConnections(message = 'Server is restarting') {
      dropConnections(message);
    },

    get draining() {
      return draining;
    },

    async drain({ graceMs = 0 } = {}) {
      draining = true;
      const open: Array<[Socket, AppState]> = [];
      for (const app of appsById.values()) for (const ws of app.sockets) open.push([ws, app]);
      // Batches every 100 ms across the grace period: a node with 50 000 sockets hands its clients to the other
      // nodes at a steady rate instead of all at once.
      const steps = Math.max(1, Math.floor(graceMs / 100));
      const perStep = Math.max(1, Math.ceil(open.length / steps));
      logger.info('draining', { scope: 'socket.server', sockets: open.length, graceMs });
      for (let index = 0; index < open.length; index += perStep) {
        for (const [ws, app] of open.slice(index, index + perStep)) {
          closeWith(ws, app, ErrorCode.Reconnect, 'Server is shutting down');
        }
        if (index + perStep < open.length)
          await new Promise((resolve) => setTimeout(resolve, graceMs / steps));
      }
    },

    reload(next) {
      dropConnections('Server is restarting');
      loadApps(next.apps);
      if (next.httpHandler) httpHandler = next.httpHandler;
      if ('httpFastPath' in next) httpFastPath = next.httpFastPath;
      if (listening) startSweep();
      logger.info('reloaded', { scope: 'socket.server.restart', apps: next.apps.length });
    },

    setApps,

    upsertApp(raw) {
      const config = resolveApp(raw, fallbacks);
      const holder = appsByKey.get(config.key);
      if (holder && holder.config.id !== config.id) {
        throw new RealtimeServerError(
          'invalid_options',
          `upsertApp: the key "${config.key}" belongs to app ${holder.config.id}`,
        );
      }
      const change = applyApp(config);
      adjustSweep();
      return change;
    },

    removeApp,

    findApp(appId) {
      return appsById.get(appId)?.config;
    },

    publish(appId, request) {
      const app = appsById.get(appId);
      if (!app) return;
      for (const channel of request.channels) {
        const frame = encodeChannelEvent({ event: request.event, channel, data: request.data });
        if (describeChannel(channel).cache) {
          const cached = { frame, event: request.event, data: request.data };
          app.cache.set(channel, { ...cached, expiresAt: Date.now() + app.config.cacheTtlMs });
          cluster?.storeCachedEvent(appId, channel, cached, app.config.cacheTtlMs);
        }
        const recipients = deliverLocal(app, channel, frame, request.excludeSocketId);
        cluster?.broadcast({
          type: 'deliver',
          delivery: { appId, channel, frame, excludeSocketId: request.excludeSocketId },
        });
        if (events.has('messageSent')) {
          events.emit(
            'messageSent',
            { appId, channel, event: request.event, recipients },
            reportListenerError,
          );
        }
      }
    },

    async channels(appId, prefix) {
      const app = appsById.get(appId);
      if (!app) return [];
      if (cluster) return cluster.channels(appId, prefix);
      const list: ChannelSummary[] = [];
      for (const [name, state] of app.channels) {
        if (prefix && !name.startsWith(prefix)) continue;
        list.push(
          state.roster
            ? { name, subscriptionCount: state.subscribers, userCount: state.roster.memberCount }
            : { name, subscriptionCount: state.subscribers },
        );
      }
      return list;
    },

    async channel(appId, name) {
      const app = appsById.get(appId);
      if (cluster && app) {
        const [counts, cached] = await Promise.all([
          cluster.channel(appId, name),
          describeChannel(name).cache ? cluster.cachedEvent(appId, name) : undefined,
        ]);
        return {
          occupied: counts.subscriptionCount > 0,
          ...counts,
          ...(cached
            ? {
                cache: {
                  event: cached.event,
                  data: cached.data,
                  ttl: Math.max(0, Math.round(cached.ttlMs / 1000)),
                },
              }
            : {}),
        };
      }
      const state = app?.channels.get(name);
      const cached = app ? freshCache(app, name) : undefined;
      return {
        occupied: (state?.subscribers ?? 0) > 0,
        subscriptionCount: state?.subscribers ?? 0,
        ...(describeChannel(name).presence ? { userCount: state?.roster?.memberCount ?? 0 } : {}),
        ...(cached
          ? {
              cache: {
                event: cached.event,
                data: cached.data,
                ttl: Math.max(0, Math.round((cached.expiresAt - Date.now()) / 1000)),
              },
            }
          : {}),
      };
    },

    async presenceUsers(appId, name) {
      if (cluster && appsById.has(appId)) return cluster.presenceUsers(appId, name);
      return appsById.get(appId)?.channels.get(name)?.roster?.userIds() ?? [];
    },

    terminateUser(appId, userId) {
      cluster?.broadcast({ type: 'terminate', appId, userId });
      return terminateLocal(appId, userId);
    },

    async connectionCount(appId) {
      if (cluster && appsById.has(appId)) return cluster.connectionCount(appId);
      return appsById.get(appId)?.sockets.size ?? 0;
    },
  };
  return server;
}
