// The in-memory cluster, a test double of the scaling adapter port: nodes in one process share one `ClusterState`
// (the bookkeeping a Redis adapter keeps in Redis), and their messages travel on a bus that delivers each on a
// later microtask, as a network would. Every answer is a promise, as from Redis.

import type { ClusterAdapter, ClusterChannelChange, ClusterListener, ClusterMessage } from './cluster.js';
import { ClusterState } from './cluster-state.js';
import { encodeMemberRemoved } from './server-frame.js';

/** An in-memory cluster for tests: nodes in one process sharing state, as a Redis adapter would. */
export interface MemoryCluster {
  /** A node of the cluster (its adapter). */
  node(nodeId: string): ClusterAdapter;
  /** Drops a node without cleanup, as a crash would, then has the survivors remove its share. */
  kill(nodeId: string): void;
}

function dispatch(listener: ClusterListener, message: ClusterMessage): void {
  if (message.type === 'deliver') listener.deliver(message.delivery);
  else if (message.type === 'terminate') listener.terminate(message.appId, message.userId);
  else if (message.type === 'count') listener.countChanged?.(message.appId, message.channel);
  else if (message.type === 'user') listener.userChanged?.(message.appId, message.userId, message.online);
  else if (message.type === 'debug_watch') listener.debugWatched?.(message.appId);
  else if (message.type === 'debug') listener.debugRecord?.(message.appId, message.record);
  else listener.restart();
}

/** The started nodes' listeners, and how messages and decided changes reach them. */
class MemoryBus {
  readonly listeners = new Map<string, ClusterListener>();

  /** Sends a message to every node but `from` (to every node when `from` is undefined). */
  send(from: string | undefined, message: ClusterMessage): void {
    for (const [nodeId, listener] of this.listeners) {
      if (nodeId !== from) queueMicrotask(() => dispatch(listener, message));
    }
  }

  /** Tells one node (the given one, else any live one) of a change decided for the cluster. */
  tell(change: ClusterChannelChange, nodeId?: string): void {
    const listener = (nodeId && this.listeners.get(nodeId)) || this.listeners.values().next().value;
    if (listener?.channelChanged) queueMicrotask(() => listener.channelChanged?.(change));
  }
}

/** Has the survivors remove a stopped or dead node's share, telling what it changed as the Redis adapter does. */
function reap(state: ClusterState, bus: MemoryBus, nodeId: string): void {
  const dropped = state.dropNode(nodeId, (socketKey) => socketKey.startsWith(`${nodeId}|`));
  for (const { appId, userId } of dropped.offline) {
    bus.send(undefined, { type: 'user', appId, userId, online: false });
  }
  for (const { appId, channel } of dropped.vacated) bus.tell({ type: 'vacated', appId, channel });
  for (const { appId, channel, userId } of dropped.removed) {
    const frame = encodeMemberRemoved(channel, userId);
    bus.send(undefined, { type: 'deliver', delivery: { appId, channel, frame } });
    bus.tell({ type: 'member_removed', appId, channel, userId });
  }
}

/** One node's adapter over the shared state; presence sockets are keyed by node, so a dead node's are found. */
function createMemoryNode(
  nodeId: string,
  shared: { readonly state: ClusterState; readonly bus: MemoryBus; readonly drop: (nodeId: string) => void },
): ClusterAdapter {
  const { state, bus } = shared;
  const socketKey = (socketId: string) => `${nodeId}|${socketId}`;
  return {
    nodeId,
    async start(listener) {
      bus.listeners.set(nodeId, listener);
    },
    async stop() {
      shared.drop(nodeId);
    },
    broadcast(message) {
      bus.send(nodeId, message);
    },
    async admitConnection(appId, maxConnections) {
      return state.admit(nodeId, appId, maxConnections);
    },
    releaseConnection(appId) {
      state.release(nodeId, appId);
    },
    async joinPresence({ appId, channel, socketId, member, maxMembers }) {
      return state.join(appId, channel, socketKey(socketId), member, maxMembers);
    },
    async leavePresence(appId, channel, socketId) {
      return state.leave(appId, channel, socketKey(socketId));
    },
    setLocalSubscriptions(appId, channel, count) {
      const change = state.setSubscribers(nodeId, appId, channel, count);
      if (change) bus.tell({ type: change, appId, channel }, nodeId);
    },
    setLocalUser(appId, userId, signedIn) {
      if (state.setUser(nodeId, appId, userId, signedIn)) {
        bus.send(undefined, { type: 'user', appId, userId, online: signedIn });
      }
    },
    async onlineUsers(appId, userIds) {
      return state.onlineUsers(appId, userIds);
    },
    storeCachedEvent(appId, channel, event, ttlMs) {
      state.storeCachedEvent(appId, channel, event, ttlMs);
    },
    async cachedEvent(appId, channel) {
      return state.cachedEvent(appId, channel);
    },
    async channels(appId, prefix) {
      return state.channels(appId, prefix);
    },
    async channel(appId, name) {
      return state.channel(appId, name);
    },
    async presenceUsers(appId, name) {
      return state.presenceUsers(appId, name);
    },
    async presenceMembers(appId, name) {
      return state.presenceMembers(appId, name);
    },
    async connectionCount(appId) {
      return state.connectionCount(appId);
    },
  };
}

/** Creates an in-memory cluster whose nodes follow the same rules as the Redis adapter. */
export function createMemoryCluster(): MemoryCluster {
  const state = new ClusterState();
  const bus = new MemoryBus();
  const drop = (nodeId: string) => {
    bus.listeners.delete(nodeId);
    reap(state, bus, nodeId);
  };
  return {
    node: (nodeId) => createMemoryNode(nodeId, { state, bus, drop }),
    kill: drop,
  };
}
