// The Redis key layout. Every `{…}` hash tag groups the keys one Lua script touches into one slot, because a
// Redis Cluster refuses scripts whose keys live in several slots. Channel names cannot hold ':' (Pusher allows
// [A-Za-z0-9_\-=@,.;#]), so `app:channel` is unambiguous even for an app id with a colon.

/** Builds the keys of one deployment (one key prefix). */
export function createKeys(prefix: string) {
  const node = (nodeId: string) => `${prefix}{node:${nodeId}}`;
  const presence = (appId: string, channel: string) => `${prefix}{presence:${appId}:${channel}}`;
  return {
    /** Sorted set: node id → last heartbeat (ms, Redis clock). */
    nodes: `${prefix}{nodes}`,
    /** Set of the presence channels a node holds sockets in, as JSON [appId, channel]. */
    nodePresence: (nodeId: string) => `${node(nodeId)}:presence`,
    /** Set of the app ids a node has counted connections or subscriptions for. */
    nodeApps: (nodeId: string) => `${node(nodeId)}:apps`,
    /** Hash: channel → local subscription count of one node for one app. */
    nodeSubscriptions: (nodeId: string, appId: string) => `${node(nodeId)}:subs:${appId}`,
    /** String: who is reaping (or resynchronising) a node. */
    nodeLock: (nodeId: string) => `${node(nodeId)}:lock`,
    /** Hash: node id → open connections of one app. */
    connections: (appId: string) => `${prefix}{connections:${appId}}`,
    /** Hashes of one presence channel: `node|socketId` → user id; user id → socket count; user id → info JSON. */
    presence: (appId: string, channel: string) =>
      [
        `${presence(appId, channel)}:sockets`,
        `${presence(appId, channel)}:users`,
        `${presence(appId, channel)}:info`,
      ] as const,
    /** Set of the user ids a node holds signed-in sockets of, for one app. */
    nodeUsers: (nodeId: string, appId: string) => `${node(nodeId)}:users:${appId}`,
    /** Set of the node ids holding signed-in sockets of one user: online while it has members. */
    online: (appId: string, userId: string) => `${prefix}{app:${appId}}:online:${userId}`,
    /** Set of the node ids holding subscribers of one channel: occupied while it has members. */
    occupancy: (appId: string, channel: string) => `${prefix}{app:${appId}}:occupied:${channel}`,
    /** Hash {event, data, frame} with a PX expiry: the last event of a cache channel. */
    cache: (appId: string, channel: string) => `${prefix}{cache:${appId}:${channel}}`,
  };
}

export type Keys = ReturnType<typeof createKeys>;

/** The field of a socket in a presence channel's sockets hash. */
export const socketField = (nodeId: string, socketId: string) => `${nodeId}|${socketId}`;
