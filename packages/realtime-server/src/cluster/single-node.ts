// Single-node mode as a cluster adapter: a server given no `cluster` is a cluster of one, so every room of the server
// has one path. The cluster's state is this node's (protocol-core's `ClusterState`, as the in-memory test cluster
// keeps it), every answer comes at once (no promise on the hot paths), and a broadcast costs nothing: nobody else
// is there to tell. Cache channels' last events are the server's own copies (kept per app state, so a reload or a
// re-added app starts without them), read through the function the server hands over. Decisions made for the cluster (a channel occupied or vacated, a user online or offline) reach
// the server's listener synchronously, as they happen.

import {
  type ClusterAdapter,
  type ClusterCachedEvent,
  type ClusterChannelCounts,
  type ClusterListener,
  type ClusterMessage,
  type ClusterPresenceJoin,
  type ClusterPresenceLeave,
  ClusterState,
  type PresenceSnapshot,
} from '@herald/protocol-core';

/** The node id a server alone reports (e.g. in its `listening` log). */
export const SINGLE_NODE_ID = 'single-node';

const everySocket = () => true;

/** Reads the server's own copy of a cache channel's last event, unless it expired. */
export type LocalCachedEvent = (appId: string, channel: string) => ClusterCachedEvent | undefined;

/** The adapter of a server that serves alone; its presence sockets are keyed by socket id alone. */
export class SingleNode implements ClusterAdapter {
  readonly nodeId = SINGLE_NODE_ID;
  readonly #state = new ClusterState();
  readonly #localCachedEvent: LocalCachedEvent;
  #listener: ClusterListener | undefined;

  constructor(localCachedEvent: LocalCachedEvent) {
    this.#localCachedEvent = localCachedEvent;
  }

  async start(listener: ClusterListener): Promise<void> {
    this.#listener = listener;
  }

  async stop(): Promise<void> {
    this.#listener = undefined;
    this.#state.dropNode(SINGLE_NODE_ID, everySocket);
  }

  broadcast(_message: ClusterMessage): void {
    // Nobody else to tell.
  }

  admitConnection(appId: string, maxConnections: number): boolean {
    return this.#state.admit(SINGLE_NODE_ID, appId, maxConnections);
  }

  releaseConnection(appId: string): void {
    this.#state.release(SINGLE_NODE_ID, appId);
  }

  joinPresence(input: Parameters<ClusterAdapter['joinPresence']>[0]): ClusterPresenceJoin {
    return this.#state.join(input.appId, input.channel, input.socketId, input.member, input.maxMembers);
  }

  leavePresence(appId: string, channel: string, socketId: string): ClusterPresenceLeave {
    return this.#state.leave(appId, channel, socketId);
  }

  setLocalSubscriptions(appId: string, channel: string, count: number): void {
    const change = this.#state.setSubscribers(SINGLE_NODE_ID, appId, channel, count);
    if (change) this.#listener?.channelChanged?.({ type: change, appId, channel });
  }

  setLocalUser(appId: string, userId: string, signedIn: boolean): void {
    if (this.#state.setUser(SINGLE_NODE_ID, appId, userId, signedIn)) {
      this.#listener?.userChanged?.(appId, userId, signedIn);
    }
  }

  onlineUsers(appId: string, userIds: readonly string[]): string[] {
    return this.#state.onlineUsers(appId, userIds);
  }

  storeCachedEvent(_appId: string, _channel: string, _event: object, _ttlMs: number): void {
    // The server keeps its own copy of the event, which, alone, is the cluster's.
  }

  cachedEvent(appId: string, channel: string): ClusterCachedEvent | undefined {
    return this.#localCachedEvent(appId, channel);
  }

  channels(appId: string, prefix?: string): Array<{ readonly name: string } & ClusterChannelCounts> {
    return this.#state.channels(appId, prefix);
  }

  channel(appId: string, name: string): ClusterChannelCounts {
    return this.#state.channel(appId, name);
  }

  presenceUsers(appId: string, name: string): string[] {
    return this.#state.presenceUsers(appId, name);
  }

  presenceMembers(appId: string, name: string): PresenceSnapshot {
    return this.#state.presenceMembers(appId, name);
  }

  connectionCount(appId: string): number {
    return this.#state.connectionCount(appId);
  }
}
