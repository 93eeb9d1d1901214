// The whole cluster's state held in one process: connections per app, subscribers per channel, presence rosters,
// signed-in users and cache channels' last events, each kept per node so a node's share can be dropped. Answers at
// once (no I/O): the in-memory test cluster shares it between its nodes, and a server alone keeps its own.

import { describeChannel } from './channel-name.js';
import type {
  ClusterCachedEvent,
  ClusterChannelCounts,
  ClusterPresenceJoin,
  ClusterPresenceLeave,
} from './cluster.js';
import { NodeTally } from './internal/node-tally.js';
import { type PresenceMember, PresenceRoster } from './presence.js';
import type { PresenceSnapshot } from './server-frame.js';

type StoredEvent = Omit<ClusterCachedEvent, 'ttlMs'> & { readonly expiresAt: number };

/** How a node's new subscriber count changed its channel cluster-wide, if it did. */
export type OccupancyChange = 'occupied' | 'vacated' | undefined;

/** What the other nodes must hear once a node's share is dropped. */
export interface DroppedShare {
  /** Users whose last signed-in socket was on the node. */
  readonly offline: ReadonlyArray<{ readonly appId: string; readonly userId: string }>;
  /** Channels whose last subscribers were on the node. */
  readonly vacated: ReadonlyArray<{ readonly appId: string; readonly channel: string }>;
  /** Presence members whose last socket was on the node. */
  readonly removed: ReadonlyArray<{
    readonly appId: string;
    readonly channel: string;
    readonly userId: string;
  }>;
}

/** The map under `key`, created empty on first use. */
function mapOf<V>(outer: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let map = outer.get(key);
  if (!map) {
    map = new Map();
    outer.set(key, map);
  }
  return map;
}

/**
 * A cluster's state kept in memory, keyed by app then channel or user. Presence sockets are named by a key the
 * caller chooses (a socket id alone, or a node and a socket id), so a dropped node's sockets can be told apart.
 */
export class ClusterState {
  readonly #connections = new Map<string, NodeTally>();
  readonly #subscribers = new Map<string, Map<string, NodeTally>>();
  readonly #rosters = new Map<string, Map<string, PresenceRoster>>();
  /** appId → userId → the nodes holding signed-in sockets of the user. */
  readonly #online = new Map<string, Map<string, Set<string>>>();
  readonly #cache = new Map<string, Map<string, StoredEvent>>();

  /** Counts a connection of a node unless the app is at its limit; false when it is. */
  admit(nodeId: string, appId: string, maxConnections: number): boolean {
    let tally = this.#connections.get(appId);
    if (!tally) {
      tally = new NodeTally();
      this.#connections.set(appId, tally);
    }
    if (tally.total >= maxConnections) return false;
    tally.set(nodeId, tally.of(nodeId) + 1);
    return true;
  }

  /** Uncounts a closed connection of a node. */
  release(nodeId: string, appId: string): void {
    const tally = this.#connections.get(appId);
    if (tally) tally.set(nodeId, Math.max(0, tally.of(nodeId) - 1));
  }

  /** Open connections of an app. */
  connectionCount(appId: string): number {
    return this.#connections.get(appId)?.total ?? 0;
  }

  /** Sets a node's subscriber count of a channel (0 removes its share); tells whether that occupied or vacated it. */
  setSubscribers(nodeId: string, appId: string, channel: string, count: number): OccupancyChange {
    const channels = mapOf(this.#subscribers, appId);
    let tally = channels.get(channel);
    if (!tally) {
      if (count <= 0) return undefined;
      tally = new NodeTally();
      channels.set(channel, tally);
    }
    const before = tally.set(nodeId, count);
    if (tally.empty) channels.delete(channel);
    if (before === 0 && tally.total > 0) return 'occupied';
    if (before > 0 && tally.total === 0) return 'vacated';
    return undefined;
  }

  /** Joins a socket to a presence channel, unless the channel is full and the user not in it yet. */
  join(
    appId: string,
    channel: string,
    socketKey: string,
    member: PresenceMember,
    maxMembers: number,
  ): ClusterPresenceJoin {
    const rosters = mapOf(this.#rosters, appId);
    let roster = rosters.get(channel);
    if (!roster) {
      roster = new PresenceRoster();
      rosters.set(channel, roster);
    }
    const full =
      roster.userOf(socketKey) === undefined &&
      !roster.hasUser(member.userId) &&
      roster.memberCount >= maxMembers;
    if (full) {
      const snapshot = roster.snapshot();
      if (roster.socketCount === 0) rosters.delete(channel);
      return { accepted: false, added: false, snapshot };
    }
    const change = roster.join(socketKey, member);
    return { accepted: true, added: change.type === 'member_added', snapshot: roster.snapshot() };
  }

  /** Takes a socket out of a presence channel; `removed` when it was its user's last socket there. */
  leave(appId: string, channel: string, socketKey: string): ClusterPresenceLeave {
    const rosters = this.#rosters.get(appId);
    const roster = rosters?.get(channel);
    const userId = roster?.userOf(socketKey);
    if (!roster || userId === undefined) return { removed: false, userId: undefined };
    const change = roster.leave(socketKey);
    if (roster.socketCount === 0) rosters?.delete(channel);
    return { removed: change.type === 'member_removed', userId };
  }

  /** Records whether a node holds signed-in sockets of a user; true when that took the user online or offline. */
  setUser(nodeId: string, appId: string, userId: string, signedIn: boolean): boolean {
    const users = mapOf(this.#online, appId);
    let nodes = users.get(userId);
    const before = nodes?.size ?? 0;
    if (signedIn) {
      if (!nodes) {
        nodes = new Set();
        users.set(userId, nodes);
      }
      nodes.add(nodeId);
    } else if (nodes) {
      nodes.delete(nodeId);
      if (nodes.size === 0) users.delete(userId);
    }
    return (before === 0) !== ((nodes?.size ?? 0) === 0);
  }

  /** Which of these users have a signed-in socket on some node. */
  onlineUsers(appId: string, userIds: readonly string[]): string[] {
    const users = this.#online.get(appId);
    return users ? userIds.filter((userId) => users.has(userId)) : [];
  }

  /** Keeps the last event of a cache channel for `ttlMs`. */
  storeCachedEvent(
    appId: string,
    channel: string,
    event: Omit<ClusterCachedEvent, 'ttlMs'>,
    ttlMs: number,
  ): void {
    const { frame, data } = event;
    mapOf(this.#cache, appId).set(channel, {
      event: event.event,
      data,
      frame,
      expiresAt: Date.now() + ttlMs,
    });
  }

  /** The last event of a cache channel, unless it expired (then it is dropped). */
  cachedEvent(appId: string, channel: string): ClusterCachedEvent | undefined {
    const entry = this.#cache.get(appId)?.get(channel);
    if (!entry) return undefined;
    const ttlMs = entry.expiresAt - Date.now();
    if (ttlMs <= 0) {
      this.#cache.get(appId)?.delete(channel);
      return undefined;
    }
    return { event: entry.event, data: entry.data, frame: entry.frame, ttlMs };
  }

  /** Occupied channels of an app, optionally only those starting with a prefix. */
  channels(appId: string, prefix?: string): Array<{ readonly name: string } & ClusterChannelCounts> {
    const list: Array<{ readonly name: string } & ClusterChannelCounts> = [];
    for (const [name, tally] of this.#subscribers.get(appId) ?? []) {
      if (prefix && !name.startsWith(prefix)) continue;
      list.push({ name, ...this.#countsOf(appId, name, tally.total) });
    }
    return list;
  }

  /** Counts of one channel. */
  channel(appId: string, name: string): ClusterChannelCounts {
    return this.#countsOf(appId, name, this.#subscribers.get(appId)?.get(name)?.total ?? 0);
  }

  /** User ids present in a presence channel. */
  presenceUsers(appId: string, name: string): string[] {
    return this.#rosters.get(appId)?.get(name)?.userIds() ?? [];
  }

  /** The members of a presence channel with their `user_info`. */
  presenceMembers(appId: string, name: string): PresenceSnapshot {
    return this.#rosters.get(appId)?.get(name)?.snapshot() ?? { ids: [], hash: {}, count: 0 };
  }

  /** Drops everything a node held (`ownsSocket` picks its presence sockets); returns what the others must hear. */
  dropNode(nodeId: string, ownsSocket: (socketKey: string) => boolean): DroppedShare {
    for (const tally of this.#connections.values()) tally.set(nodeId, 0);
    const offline: Array<{ appId: string; userId: string }> = [];
    for (const [appId, users] of this.#online) {
      for (const [userId, nodes] of [...users]) {
        if (nodes.has(nodeId) && this.setUser(nodeId, appId, userId, false)) offline.push({ appId, userId });
      }
    }
    const vacated: Array<{ appId: string; channel: string }> = [];
    for (const [appId, channels] of this.#subscribers) {
      for (const [channel, tally] of [...channels]) {
        if (tally.of(nodeId) === 0) continue;
        if (this.setSubscribers(nodeId, appId, channel, 0) === 'vacated') vacated.push({ appId, channel });
      }
    }
    const removed: Array<{ appId: string; channel: string; userId: string }> = [];
    for (const [appId, rosters] of this.#rosters) {
      for (const [channel, roster] of [...rosters]) {
        for (const socketKey of roster.socketIds()) {
          if (!ownsSocket(socketKey)) continue;
          const left = this.leave(appId, channel, socketKey);
          if (left.removed && left.userId !== undefined)
            removed.push({ appId, channel, userId: left.userId });
        }
      }
    }
    return { offline, vacated, removed };
  }

  #countsOf(appId: string, name: string, subscriptionCount: number): ClusterChannelCounts {
    if (!describeChannel(name).presence) return { subscriptionCount };
    return { subscriptionCount, userCount: this.#rosters.get(appId)?.get(name)?.memberCount ?? 0 };
  }
}
