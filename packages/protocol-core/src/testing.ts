import type {
  ClusterAdapter,
  ClusterCachedEvent,
  ClusterChannelChange,
  ClusterListener,
  ClusterMessage,
  ClusterPresenceJoin,
} from './cluster.js';
import { encodeMemberRemoved } from './server-frame.js';

interface PresenceState {
  readonly sockets: Map<string, string>;
  readonly users: Map<string, { count: number; info: unknown }>;
}

/** An in-memory cluster for tests: nodes in one process sharing state, as a Redis adapter would. */
export interface MemoryCluster {
  /** A node of the cluster (its adapter). */
  node(nodeId: string): ClusterAdapter;
  /** Drops a node without cleanup, as a crash would, then has the survivors remove its share. */
  kill(nodeId: string): void;
}

const key = (appId: string, channel: string) => `${appId}\u0000${channel}`;
const socketKey = (nodeId: string, socketId: string) => `${nodeId}|${socketId}`;

function snapshotOf(state: PresenceState | undefined): ClusterPresenceJoin['snapshot'] {
  const ids = [...(state?.users.keys() ?? [])];
  const hash: Record<string, unknown> = {};
  for (const id of ids) hash[id] = state?.users.get(id)?.info ?? null;
  return { ids, hash: Object.fromEntries(Object.entries(hash)), count: ids.length };
}

/** Creates an in-memory cluster whose nodes follow the same rules as the Redis adapter. */
export function createMemoryCluster(): MemoryCluster {
  const listeners = new Map<string, ClusterListener>();
  const connections = new Map<string, Map<string, number>>();
  const presence = new Map<string, PresenceState>();
  const subscriptions = new Map<string, Map<string, number>>();
  // Signed-in users: `appId\0userId` → the nodes holding signed-in sockets of the user.
  const users = new Map<string, Set<string>>();
  const cache = new Map<string, Omit<ClusterCachedEvent, 'ttlMs'> & { expiresAt: number }>();

  const send = (from: string, message: ClusterMessage, includeSelf = false) => {
    for (const [nodeId, listener] of listeners) {
      if (nodeId === from && !includeSelf) continue;
      queueMicrotask(() => {
        if (message.type === 'deliver') listener.deliver(message.delivery);
        else if (message.type === 'terminate') listener.terminate(message.appId, message.userId);
        else if (message.type === 'count') listener.countChanged?.(message.appId, message.channel);
        else if (message.type === 'user')
          listener.userChanged?.(message.appId, message.userId, message.online);
        else listener.restart();
      });
    }
  };

  const leave = (appId: string, channel: string, sk: string) => {
    const state = presence.get(key(appId, channel));
    const userId = state?.sockets.get(sk);
    if (!state || userId === undefined) return { removed: false, userId: undefined };
    state.sockets.delete(sk);
    const user = state.users.get(userId);
    if (user && --user.count <= 0) {
      state.users.delete(userId);
      return { removed: true, userId };
    }
    return { removed: false, userId };
  };

  const totalOf = (appId: string, channel: string) => {
    let total = 0;
    for (const [nodeKey, counts] of subscriptions) {
      if (nodeKey.endsWith(`\u0000${appId}`)) total += counts.get(channel) ?? 0;
    }
    return total;
  };

  /** Tells one node (the given one, else any live one) of a change decided for the cluster. */
  const tell = (change: ClusterChannelChange, nodeId?: string) => {
    const listener = (nodeId && listeners.get(nodeId)) || listeners.values().next().value;
    if (listener?.channelChanged) queueMicrotask(() => listener.channelChanged?.(change));
  };

  const markUser = (nodeId: string, appId: string, userId: string, signedIn: boolean) => {
    const userKey = key(appId, userId);
    const nodes = users.get(userKey) ?? new Set<string>();
    const before = nodes.size;
    if (signedIn) nodes.add(nodeId);
    else nodes.delete(nodeId);
    if (nodes.size > 0) users.set(userKey, nodes);
    else users.delete(userKey);
    if ((before === 0) !== (nodes.size === 0)) {
      send('', { type: 'user', appId, userId, online: nodes.size > 0 }, true);
    }
  };

  const reap = (nodeId: string) => {
    for (const counts of connections.values()) counts.delete(nodeId);
    for (const [userKey, nodes] of [...users]) {
      if (!nodes.has(nodeId)) continue;
      const [appId = '', userId = ''] = userKey.split('\u0000');
      markUser(nodeId, appId, userId, false);
    }
    for (const subscriptionKey of [...subscriptions.keys()]) {
      if (!subscriptionKey.startsWith(`${nodeId}\u0000`)) continue;
      const appId = subscriptionKey.slice(nodeId.length + 1);
      const channels = [...(subscriptions.get(subscriptionKey)?.keys() ?? [])];
      subscriptions.delete(subscriptionKey);
      for (const channel of channels) {
        if (totalOf(appId, channel) === 0) tell({ type: 'vacated', appId, channel });
      }
    }
    for (const [channelKey, state] of presence) {
      const [appId = '', channel = ''] = channelKey.split('\u0000');
      for (const sk of [...state.sockets.keys()]) {
        if (!sk.startsWith(`${nodeId}|`)) continue;
        const outcome = leave(appId, channel, sk);
        if (outcome.removed && outcome.userId !== undefined) {
          const frame = encodeMemberRemoved(channel, outcome.userId);
          send('', { type: 'deliver', delivery: { appId, channel, frame } }, true);
          tell({ type: 'member_removed', appId, channel, userId: outcome.userId });
        }
      }
    }
  };

  const node = (nodeId: string): ClusterAdapter => ({
    nodeId,
    async start(listener) {
      listeners.set(nodeId, listener);
    },
    async stop() {
      listeners.delete(nodeId);
      reap(nodeId);
    },
    broadcast(message) {
      send(nodeId, message);
    },
    async admitConnection(appId, maxConnections) {
      const counts = connections.get(appId) ?? new Map<string, number>();
      connections.set(appId, counts);
      const total = [...counts.values()].reduce((sum, count) => sum + count, 0);
      if (total >= maxConnections) return false;
      counts.set(nodeId, (counts.get(nodeId) ?? 0) + 1);
      return true;
    },
    releaseConnection(appId) {
      const counts = connections.get(appId);
      if (counts) counts.set(nodeId, Math.max(0, (counts.get(nodeId) ?? 0) - 1));
    },
    async joinPresence({ appId, channel, socketId, member, maxMembers }) {
      const channelKey = key(appId, channel);
      const state = presence.get(channelKey) ?? { sockets: new Map(), users: new Map() };
      presence.set(channelKey, state);
      const sk = socketKey(nodeId, socketId);
      if (state.sockets.has(sk)) return { accepted: true, added: false, snapshot: snapshotOf(state) };
      const user = state.users.get(member.userId);
      if (!user && state.users.size >= maxMembers)
        return { accepted: false, added: false, snapshot: snapshotOf(state) };
      state.sockets.set(sk, member.userId);
      if (user) user.count += 1;
      else state.users.set(member.userId, { count: 1, info: member.userInfo });
      return { accepted: true, added: !user, snapshot: snapshotOf(state) };
    },
    async leavePresence(appId, channel, socketId) {
      return leave(appId, channel, socketKey(nodeId, socketId));
    },
    setLocalSubscriptions(appId, channel, count) {
      const nodeKey = `${nodeId}\u0000${appId}`;
      const counts = subscriptions.get(nodeKey) ?? new Map<string, number>();
      subscriptions.set(nodeKey, counts);
      const before = totalOf(appId, channel);
      if (count > 0) counts.set(channel, count);
      else counts.delete(channel);
      const after = totalOf(appId, channel);
      if (before === 0 && after > 0) tell({ type: 'occupied', appId, channel }, nodeId);
      else if (before > 0 && after === 0) tell({ type: 'vacated', appId, channel }, nodeId);
    },
    setLocalUser(appId, userId, signedIn) {
      markUser(nodeId, appId, userId, signedIn);
    },
    async onlineUsers(appId, userIds) {
      return userIds.filter((userId) => users.has(key(appId, userId)));
    },
    storeCachedEvent(appId, channel, event, ttlMs) {
      cache.set(key(appId, channel), { ...event, expiresAt: Date.now() + ttlMs });
    },
    async cachedEvent(appId, channel) {
      const entry = cache.get(key(appId, channel));
      if (!entry || entry.expiresAt <= Date.now()) return undefined;
      const { expiresAt, ...event } = entry;
      return { ...event, ttlMs: expiresAt - Date.now() };
    },
    async channels(appId, prefix) {
      const totals = new Map<string, number>();
      for (const [nodeKey, counts] of subscriptions) {
        if (!nodeKey.endsWith(`\u0000${appId}`)) continue;
        for (const [channel, count] of counts) {
          if (prefix && !channel.startsWith(prefix)) continue;
          totals.set(channel, (totals.get(channel) ?? 0) + count);
        }
      }
      return [...totals].map(([name, subscriptionCount]) => {
        const users = presence.get(key(appId, name))?.users;
        return name.startsWith('presence-')
          ? { name, subscriptionCount, userCount: users?.size ?? 0 }
          : { name, subscriptionCount };
      });
    },
    async channel(appId, name) {
      let subscriptionCount = 0;
      for (const [nodeKey, counts] of subscriptions) {
        if (nodeKey.endsWith(`\u0000${appId}`)) subscriptionCount += counts.get(name) ?? 0;
      }
      const users = presence.get(key(appId, name))?.users;
      return name.startsWith('presence-')
        ? { subscriptionCount, userCount: users?.size ?? 0 }
        : { subscriptionCount };
    },
    async presenceUsers(appId, name) {
      return [...(presence.get(key(appId, name))?.users.keys() ?? [])];
    },
    async connectionCount(appId) {
      return [...(connections.get(appId)?.values() ?? [])].reduce((sum, count) => sum + count, 0);
    },
  });

  return {
    node,
    kill(nodeId) {
      listeners.delete(nodeId);
      reap(nodeId);
    },
  };
}
