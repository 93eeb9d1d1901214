import type { PresenceMember } from './presence.js';
import type { PresenceSnapshot } from './server-frame.js';

// The port between the real-time server and a scaling adapter (Redis or an in-memory double). Both sides import
// it from here, so neither package imports the other; an app wires them.

/**
 * An adapter's answer: a value at once (an adapter with nothing to wait for, such as a server alone) or a promise
 * (one that asks another process). Callers test for a promise and keep the synchronous path free of awaits.
 */
export type Awaitable<T> = T | Promise<T>;

/** An already-encoded frame to deliver to a channel's subscribers on every node. */
export interface ClusterDelivery {
  readonly appId: string;
  readonly channel: string;
  /** The exact frame text; nodes send it as is, never re-encoding it. */
  readonly frame: string;
  /** A socket that must not receive it, wherever it is connected. */
  readonly excludeSocketId?: string | undefined;
}

/** What one node tells the others. */
export type ClusterMessage =
  | { readonly type: 'deliver'; readonly delivery: ClusterDelivery }
  | { readonly type: 'terminate'; readonly appId: string; readonly userId: string }
  | { readonly type: 'restart' }
  /** A node's subscriber count of a channel changed: nodes holding subscribers re-read the cluster's count. */
  | { readonly type: 'count'; readonly appId: string; readonly channel: string }
  /** A user came online (first signed-in socket anywhere) or went offline (last one anywhere). */
  | { readonly type: 'user'; readonly appId: string; readonly userId: string; readonly online: boolean }
  /** An operator console on the sending node watches an app: send it that app's debug records for a while. */
  | { readonly type: 'debug_watch'; readonly appId: string }
  /** A debug record (JSON text) of an app some node watches. */
  | { readonly type: 'debug'; readonly appId: string; readonly record: string };

/** A presence socket held by this node, for rebuilding its share of the state. */
export interface LocalPresence {
  readonly appId: string;
  readonly channel: string;
  readonly socketId: string;
  readonly member: PresenceMember;
}

/** This node's share of the cluster state, as the server holds it in memory. */
export interface LocalClusterState {
  readonly connections: ReadonlyArray<{ readonly appId: string; readonly count: number }>;
  readonly subscriptions: ReadonlyArray<{
    readonly appId: string;
    readonly channel: string;
    readonly count: number;
  }>;
  readonly presence: readonly LocalPresence[];
}

/**
 * A change of a channel decided once for the whole cluster, told to exactly one node: the first subscriber
 * anywhere (`occupied`), the last one anywhere leaving (`vacated`, also when a dead node's share is reaped), and a
 * member removed because the node holding their last socket died (`member_removed`).
 */
export type ClusterChannelChange =
  | { readonly type: 'occupied'; readonly appId: string; readonly channel: string }
  | { readonly type: 'vacated'; readonly appId: string; readonly channel: string }
  | {
      readonly type: 'member_removed';
      readonly appId: string;
      readonly channel: string;
      readonly userId: string;
    };

/** How the adapter reaches the server it serves. */
export interface ClusterListener {
  /** Deliver a frame from another node (or from the adapter itself, e.g. a dead node's member_removed). */
  deliver(delivery: ClusterDelivery): void;
  /** Close the local sockets of a user with 4009. */
  terminate(appId: string, userId: string): void;
  /** Close every local socket with 4200 and start fresh. */
  restart(): void;
  /** This node's current share, re-written after a reconnect. */
  localState(): LocalClusterState;
  /** Another node's subscriber count of a channel changed (see the `count` message). */
  countChanged?(appId: string, channel: string): void;
  /** A user came online or went offline in the cluster (told to every node, this one included). */
  userChanged?(appId: string, userId: string, online: boolean): void;
  /** Another node's console watches an app (see the `debug_watch` message). */
  debugWatched?(appId: string): void;
  /** A debug record of a watched app from another node (see the `debug` message). */
  debugRecord?(appId: string, record: string): void;
  /** A channel change this node is the one to report (e.g. as a webhook). Optional for adapters and servers. */
  channelChanged?(change: ClusterChannelChange): void;
}

/** The outcome of joining a presence channel across the cluster. */
export interface ClusterPresenceJoin {
  /** False when the channel is full (and this user is not in it yet): the subscription is refused. */
  readonly accepted: boolean;
  /** True when this socket made the user a member anywhere in the cluster: send `member_added`. */
  readonly added: boolean;
  /** The members across the cluster after the join. */
  readonly snapshot: PresenceSnapshot;
}

/** The outcome of leaving a presence channel across the cluster. */
export interface ClusterPresenceLeave {
  /** True when this was the user's last socket anywhere: send `member_removed`. */
  readonly removed: boolean;
  readonly userId: string | undefined;
}

/** The last event of a cache channel. */
export interface ClusterCachedEvent {
  readonly event: string;
  readonly data: string;
  /** The encoded frame replayed to new subscribers. */
  readonly frame: string;
  /** Milliseconds left before it expires. */
  readonly ttlMs: number;
}

/** Counts of one channel across the cluster. */
export interface ClusterChannelCounts {
  readonly subscriptionCount: number;
  /** Presence channels only: distinct users. */
  readonly userCount?: number;
}

/**
 * A scaling adapter: broadcast between nodes and the cluster-wide state (connections, channel counts, presence,
 * cache channels). Writes that only keep counts (`releaseConnection`, `setLocalSubscriptions`, `storeCachedEvent`,
 * `broadcast`) never throw; the adapter logs and recovers. Reads and decisions answer an {@link Awaitable}: a
 * server alone answers at once, a Redis adapter with a promise.
 */
export interface ClusterAdapter {
  /** This node's id, unique in the cluster. */
  readonly nodeId: string;
  /** Connects, subscribes to the other nodes and starts the heartbeat. */
  start(listener: ClusterListener): Promise<void>;
  /** Removes this node's share of the state and disconnects. */
  stop(): Promise<void>;
  /** Sends a message to every other node. */
  broadcast(message: ClusterMessage): void;
  /** Counts a new connection unless the app is at its cluster-wide limit; false when over it. */
  admitConnection(appId: string, maxConnections: number): Awaitable<boolean>;
  /** Uncounts a closed connection. */
  releaseConnection(appId: string): void;
  /** Joins a socket to a presence channel atomically across the cluster. */
  joinPresence(input: {
    readonly appId: string;
    readonly channel: string;
    readonly socketId: string;
    readonly member: PresenceMember;
    readonly maxMembers: number;
  }): Awaitable<ClusterPresenceJoin>;
  /** Removes a socket from a presence channel atomically across the cluster. */
  leavePresence(appId: string, channel: string, socketId: string): Awaitable<ClusterPresenceLeave>;
  /**
   * Records how many local sockets are subscribed to a channel (0 removes this node's share). When this node's
   * share appearing or going makes the channel occupied or vacated cluster-wide, the adapter tells this node's
   * listener (`channelChanged`), once for the cluster.
   *
   * An adapter that routes channel traffic by interest (a node receives a channel's traffic only while it holds
   * subscribers) returns a promise while this node is starting to receive the channel: the server confirms the
   * subscription (`pusher_internal:subscription_succeeded`) only once it settles, so nothing published after the
   * confirmation is missed. The promise never rejects; an adapter with nothing to wait for returns nothing.
   */
  setLocalSubscriptions(appId: string, channel: string, count: number): void | Promise<void>;
  /**
   * Records whether this node holds signed-in sockets of a user. When that makes the user online (their first
   * signed-in socket anywhere) or offline (their last one anywhere), every node's listener is told (`userChanged`);
   * a survivor that reaps a dead node tells of its users going offline.
   *
   * With interest routing, traffic aimed at a user (terminate) reaches only the nodes holding them: signing a user's
   * first socket in may return a promise, like `setLocalSubscriptions`, and the server answers
   * `pusher:signin_success` once it settles (it never rejects).
   */
  setLocalUser(appId: string, userId: string, signedIn: boolean): void | Promise<void>;
  /** Which of these users have a signed-in socket anywhere in the cluster. */
  onlineUsers(appId: string, userIds: readonly string[]): Awaitable<string[]>;
  /** Keeps the last event of a cache channel for every node. */
  storeCachedEvent(
    appId: string,
    channel: string,
    event: Omit<ClusterCachedEvent, 'ttlMs'>,
    ttlMs: number,
  ): void;
  /** The last event of a cache channel, if it has not expired. */
  cachedEvent(appId: string, channel: string): Awaitable<ClusterCachedEvent | undefined>;
  /** Occupied channels of an app across the cluster. */
  channels(
    appId: string,
    prefix?: string,
  ): Awaitable<Array<{ readonly name: string } & ClusterChannelCounts>>;
  /** Counts of one channel across the cluster. */
  channel(appId: string, name: string): Awaitable<ClusterChannelCounts>;
  /** User ids present in a presence channel across the cluster. */
  presenceUsers(appId: string, name: string): Awaitable<string[]>;
  /**
   * The members of a presence channel across the cluster with the `user_info` each joined with, as a
   * `subscription_succeeded` snapshot holds them (an operator console's inspector).
   */
  presenceMembers(appId: string, name: string): Awaitable<PresenceSnapshot>;
  /** Open connections of an app across the cluster. */
  connectionCount(appId: string): Awaitable<number>;
}
