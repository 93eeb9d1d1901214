// What the server holds while it runs, in one place: the apps with their channels, caches and users, each socket's
// own data, and the context every room of the server is handed.
//
// Room functions take the context first and then positional parameters: they run per frame and per fan-out, where
// an options object per call would be garbage on the hot path.

import type { ClusterAdapter, PresenceRoster, RecoveryFailureReason } from '@herald/protocol-core';
import type { AppFallbacks, ResolvedApp } from '../app.js';
import type { ApplicationEventEmitter } from '../application-events.js';
import type { DebugHub } from '../debug/debug-hub.js';
import type { ChannelHistory } from '../history/types.js';
import type { Logger } from '../logger.js';
import type { ServerMetrics } from '../metrics.js';
import type { SocketRateLimiter } from '../rate-limits.js';
import type { Transport, TransportSocket } from '../transport/types.js';
import type { AddressLimits } from './address-limits.js';
import type { SocketChannels } from './socket-channels.js';

/** A cache channel's last event, its frame encoded once. */
export interface CachedEvent {
  readonly frame: string;
  readonly event: string;
  readonly data: string;
  readonly expiresAt: number;
}

/** One occupied channel on this node. */
export interface ChannelState {
  subscribers: number;
  /** Presence channels only. */
  readonly roster: PresenceRoster | undefined;
}

/** An app's metrics, labelled once when the app is added. */
export interface AppMetrics {
  readonly connections: { inc(): void; dec(): void };
  readonly newConnections: { inc(): void };
  readonly disconnections: { inc(): void };
  readonly received: { inc(value?: number): void };
  readonly sent: { inc(value?: number): void };
  readonly bytesIn: { inc(value?: number): void };
  readonly bytesOut: { inc(value?: number): void };
  readonly subscriptions: { inc(): void; dec(): void };
  readonly replays: { inc(): void };
  readonly replayedEvents: { inc(value?: number): void };
  readonly recoveryFailures: Readonly<Record<RecoveryFailureReason, { inc(): void }>>;
}

/** Channels with a subscription count update due, and the count each was last told. */
export interface SubscriptionCounts {
  readonly due: Map<string, NodeJS.Timeout>;
  readonly told: Map<string, number>;
  /** Channels whose count changed on this node since their last update: this node reports them (webhooks). */
  readonly changedHere: Set<string>;
}

/** A socket kept off a channel's topic while its confirmation is on its way. */
export interface LiveHold {
  readonly ws: Socket;
  readonly channel: string;
  /** Frames delivered to the channel here meanwhile, in order; sent (or skipped) on release. */
  readonly held: string[];
  /** Once released: frames up to this serial already reached the socket; -1 while still holding. */
  floor: number;
  /** False once the socket joined the topic or left the channel: a late answer then sends nothing. */
  active: boolean;
  timer: NodeJS.Timeout | undefined;
}

/** One app as this node serves it. */
export interface AppState {
  /** Replaced in place when the app changes at run time: sockets hold the state, so they see the new config. */
  config: ResolvedApp;
  readonly topicPrefix: string;
  readonly sockets: Set<Socket>;
  readonly channels: Map<string, ChannelState>;
  readonly cache: Map<string, CachedEvent>;
  /** Signed-in users and their sockets. */
  readonly users: Map<string, Set<Socket>>;
  /**
   * Interest routing: users whose topic this node is still subscribing to, with the adapter's promise. Their
   * sockets that sign in meanwhile wait for it too (only the first socket asks the adapter).
   */
  readonly userRoutes: Map<string, Promise<void>>;
  /** Watched user id → the signed-in sockets of this node whose watchlist names them. */
  readonly watchers: Map<string, Set<Socket>>;
  readonly metrics: AppMetrics;
  limiter: SocketRateLimiter;
  readonly counts: SubscriptionCounts;
  /**
   * Sockets of channels with history kept off the channel's topic until their confirmation and replay went out (see
   * `live-hold.ts`), by channel; undefined while there are none, so the fan-out checks one field.
   */
  holds: Map<string, Set<LiveHold>> | undefined;
  /**
   * Authorised connections: each socket not yet authorised, with the timer that closes it with 4009 (see
   * `authorization.ts`). Kept here rather than in {@link SocketData}, which stays within its field budget.
   */
  readonly authDeadlines: Map<Socket, NodeJS.Timeout>;
}

/** A signed-in socket's watchlist, and what the socket was told of each user on it. */
export interface Watching {
  readonly users: readonly string[];
  /**
   * What this socket was last told (or learned first) of each watched user: true online, false offline. Events
   * that would repeat it are not sent, and an answer of the cluster that is older than a change is not sent either.
   */
  readonly online: Map<string, boolean>;
}

// Per-socket state stays small: a few scalars, the subscribed channel names and, only on presence channels,
// the user id each was joined as.
//
// At most 15 fields (14 now): uWebSockets.js copies every property of the upgrade's user data onto its socket object
// (`getUserData()` answers the socket itself), one by one through V8's API, and V8 keeps at most 15 properties added
// that way in fast mode. A 16th turns every socket's properties into a hash table: 0.7 KiB more heap per idle socket,
// slower reads of every field, and enough survivors in a burst of connections to double V8's young generation
// (+1.6 KiB RSS per socket at 10 000 in the bench's `idle`). State that only some sockets need goes elsewhere (a
// sub-object, or a map of the app's, as `authDeadlines`); test/socket-state.int.test.ts holds the budget.
export interface SocketData {
  readonly app: AppState | undefined;
  readonly rejection: { code: number; message: string } | undefined;
  readonly socketId: string;
  readonly origin: string | undefined;
  lastSeen: number;
  pingedAt: number;
  /** See `socket-channels.ts`: one name, or a Set once there are two. */
  channels: SocketChannels;
  presence: Map<string, string> | undefined;
  userId: string | undefined;
  /** The signed-in user's watchlist, when it has one. */
  watching: Watching | undefined;
  open: boolean;
  /** Set once `connection_established` was sent; frames before it are ignored. */
  established: boolean;
  /** Counted by the cluster adapter, so its close must be uncounted there (not when it was let in on a failure). */
  admitted: boolean;
  /** The client's address as the per-address limits count it; undefined while they are off. */
  readonly address: string | undefined;
}

export type Socket = TransportSocket<SocketData>;

/** The apps served, by key (upgrades) and by id (REST, cluster). */
export interface AppRegistry {
  readonly byKey: Map<string, AppState>;
  readonly byId: Map<string, AppState>;
  readonly fallbacks: AppFallbacks;
  /** Bumped by every reload: topics carry it, so a reload never mixes old and new subscribers. */
  generation: number;
  /** Bumped by every app added, so each app state gets topics of its own (also one re-added under an old id). */
  serial: number;
}

/** What every room of the server shares; created once by `createRealtimeServer`. */
export interface ServerContext {
  readonly logger: Logger;
  readonly events: ApplicationEventEmitter;
  readonly metrics: ServerMetrics;
  /** The cluster adapter: the app's (e.g. Redis), or a cluster of one (`SingleNode`) when this node serves alone. */
  readonly cluster: ClusterAdapter;
  /** Serials and recent frames of the channels of apps with history on (in memory when this node serves alone). */
  readonly history: ChannelHistory;
  readonly apps: AppRegistry;
  /** Established sockets by socket id (a publish may exclude one). */
  readonly socketsById: Map<string, Socket>;
  readonly transport: Transport;
  /** Per-address limits at the upgrade (off unless configured). */
  readonly addressLimits: AddressLimits;
  /** From `close()`: sockets that open are closed at once. */
  closing: boolean;
  /** From `drain()`: sockets that open are closed at once. */
  draining: boolean;
  /** Debug events for an operator console: emit sites test `debug.active` first (free while nobody watches). */
  readonly debug: DebugHub;
  /** Logs a throwing application event listener. */
  readonly reportListenerError: (error: unknown) => void;
  /**
   * Subscriptions whose confirmation waits for the cluster (interest routing, a presence roster), by socket: a
   * retried subscribe is not confirmed early, and a resubscribe while one is pending is confirmed once. Kept out of
   * the per-socket state, which stays small for idle sockets.
   */
  readonly confirming: WeakMap<SocketData, Map<string, object>>;
}
