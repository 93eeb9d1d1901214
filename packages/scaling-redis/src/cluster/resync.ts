import { encodeMemberAdded } from '@herald/protocol-core';
import * as lua from '../internal/scripts.js';
import { runScript } from '../internal/scripts.js';
import type { Connections } from './connections.js';
import { type NodeContext, toStrings } from './context.js';
import type { NodeLocks } from './locks.js';
import type { Messaging } from './messaging.js';
import type { Occupancy } from './occupancy.js';
import type { Presence } from './presence.js';
import type { Users } from './users.js';

/** The rooms that hold a node's share of the cluster state: what a resync rewrites and a reap removes. */
export interface ShareRooms {
  readonly messaging: Messaging;
  readonly connections: Connections;
  readonly presence: Presence;
  readonly occupancy: Occupancy;
  readonly users: Users;
  readonly locks: NodeLocks;
}

/**
 * Rewrites this node's share of the cluster state (at start, after an outage, or after being reaped) from the
 * server's `localState()` and the writes this adapter was asked to make, reporting what changed meanwhile once.
 */
export function createResync(context: NodeContext, rooms: ShareRooms): () => Promise<void> {
  const { nodeId, keys, link, logger, metrics } = context;
  const { messaging, connections, presence, occupancy, users, locks } = rooms;
  const { subscriptions, occupied } = occupancy;

  /** Takes in what the server holds and this adapter has not heard of (e.g. from before it started). */
  function adoptLocalState(): boolean {
    const active = context.listener;
    if (!active) return false;
    const state = active.localState();
    for (const { appId, count } of state.connections) {
      if (!connections.counts.has(appId)) connections.counts.set(appId, count);
    }
    for (const { appId, channel, count } of state.subscriptions) {
      const counts = subscriptions.get(appId) ?? new Map<string, number>();
      subscriptions.set(appId, counts);
      if (!counts.has(channel) && count > 0) counts.set(channel, count);
    }
    for (const { appId, channel, socketId, member } of state.presence) {
      presence.adopt(appId, channel, socketId, member);
    }
    return true;
  }

  /** The writes of one app's share: connections, subscription counts, occupancy and signed-in users. */
  function appWrites(appId: string): Array<Promise<unknown>> {
    const writes: Array<Promise<unknown>> = [];
    const count = connections.counts.get(appId) ?? 0;
    const key = keys.connections(appId);
    writes.push(
      count > 0
        ? context.send(key, 'HSET', key, nodeId, String(count))
        : context.send(key, 'HDEL', key, nodeId),
    );
    const flat = [...(subscriptions.get(appId) ?? [])].flatMap(([channel, n]) => [channel, String(n)]);
    writes.push(runScript(link, lua.replaceHash, [keys.nodeSubscriptions(nodeId, appId)], flat));
    // Occupancy as it is now: what changed since Redis last acknowledged it is reported (late, but once);
    // what did not is rewritten quietly, in case Redis lost it.
    const now = subscriptions.get(appId) ?? new Map<string, number>();
    const acked = occupied.get(appId) ?? new Set<string>();
    for (const channel of new Set([...now.keys(), ...acked])) {
      const holds = (now.get(channel) ?? 0) > 0;
      writes.push(occupancy.mark(nodeId, appId, channel, holds, holds === acked.has(channel)));
    }
    // Signed-in users alike: the index rewritten, online/offline reported for what changed meanwhile.
    const held = users.signedIn.get(appId) ?? new Set<string>();
    const usersKey = keys.nodeUsers(nodeId, appId);
    writes.push(
      context
        .send(usersKey, 'DEL', usersKey)
        .then(() => (held.size > 0 ? context.send(usersKey, 'SADD', usersKey, ...held) : undefined)),
    );
    const ackedUsers = users.onlineAcked.get(appId) ?? new Set<string>();
    for (const userId of new Set([...held, ...ackedUsers])) {
      const holds = held.has(userId);
      writes.push(users.mark(nodeId, appId, userId, holds, holds === ackedUsers.has(userId)));
    }
    return writes;
  }

  return async function resync(): Promise<void> {
    if (!context.listener) return;
    const token = await locks.lock(nodeId);
    if (!token) return; // A survivor is reaping this node right now; the next heartbeat tries again.
    try {
      const [indexed, apps] = await Promise.all([
        presence.indexed(nodeId),
        context.send(keys.nodeApps(nodeId), 'SMEMBERS', keys.nodeApps(nodeId)).then(toStrings),
      ]);
      // Read the server's state only now, right before the writes, so nothing written meanwhile is undone.
      if (!adoptLocalState()) return;
      const allApps = new Set([
        ...apps,
        ...connections.counts.keys(),
        ...subscriptions.keys(),
        ...users.signedIn.keys(),
      ]);
      const held = presence.sockets;
      const refs = new Set([...indexed, ...held.keys()]);
      const writes: Array<Promise<unknown>> = [];
      if (allApps.size) {
        writes.push(context.send(keys.nodeApps(nodeId), 'SADD', keys.nodeApps(nodeId), ...allApps));
      }
      if (held.size) {
        writes.push(
          context.send(keys.nodePresence(nodeId), 'SADD', keys.nodePresence(nodeId), ...held.keys()),
        );
      }
      for (const appId of allApps) writes.push(...appWrites(appId));
      const synced = [...refs].map((ref) => presence.sync(ref, held.get(ref) ?? new Map(), nodeId));
      // Settled together: with one master of a Redis Cluster down, some of these fail while others succeed. A
      // rejection nobody awaits would be unhandled (which ends a Node process), and the changes of the syncs that
      // succeeded are in Redis already: they must be announced even though the resync as a whole failed.
      const [written, syncs] = await Promise.all([Promise.allSettled(writes), Promise.allSettled(synced)]);
      for (const sync of syncs) {
        if (sync.status === 'rejected') continue;
        const { appId, channel, removed, added } = sync.value;
        // Sockets that left while Redis was away: nobody has been told yet, this node included.
        for (const userId of removed) messaging.announceRemoved(appId, channel, userId, true);
        // Users made new again (survivors reaped this node meanwhile): this node's sockets never saw them go.
        const sockets = held.get(presence.ref(appId, channel));
        for (const userId of added) {
          const member = [...(sockets?.values() ?? [])].find((each) => each.userId === userId);
          messaging.announce(appId, channel, userId, encodeMemberAdded(channel, userId, member?.userInfo));
        }
      }
      const failed = [...written, ...syncs].find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
      await messaging.flushAnnouncements(true);
      const emptied = [...refs].filter((ref) => !held.has(ref));
      if (emptied.length) {
        await context.send(keys.nodePresence(nodeId), 'SREM', keys.nodePresence(nodeId), ...emptied);
      }
      for (const appId of allApps) connections.knownApps.add(appId);
      context.stale = false;
      metrics.resynced();
      logger.info('rewrote this node share of the cluster state', {
        nodeId,
        apps: allApps.size,
        presenceChannels: held.size,
      });
    } finally {
      await locks.unlock(nodeId, token);
    }
  };
}
