import { randomBytes } from 'node:crypto';
import {
  type ClusterAdapter,
  type ClusterCachedEvent,
  type ClusterChannelChange,
  type ClusterChannelCounts,
  type ClusterDelivery,
  type ClusterListener,
  type ClusterMessage,
  type ClusterPresenceJoin,
  type ClusterPresenceLeave,
  encodeMemberAdded,
  encodeMemberRemoved,
  type PresenceMember,
} from '@herald/protocol-core';
import { ScalingRedisError } from './errors.js';
import { createRedisLink, type RedisLink } from './internal/connection.js';
import { createKeys, socketField } from './internal/keys.js';
import * as lua from './internal/scripts.js';
import { runScript } from './internal/scripts.js';
import { decodeWireMessage, encodeWireMessage } from './internal/wire.js';
import { type Logger, silentLogger } from './logger.js';
import type { RedisServerOptions } from './redis-options.js';

/** Counters the server can export; every hook is optional. */
export interface ScalingMetrics {
  /** A message was published to the other nodes. */
  messageSent?(type: ClusterMessage['type']): void;
  /** A message from another node was handed to the listener. */
  messageReceived?(type: ClusterMessage['type']): void;
  /** A Redis operation failed (`publish`, `heartbeat`, `admit`, `subscriptions`, …) or a message was unreadable. */
  error?(operation: string): void;
  /** This node removed the share of a node whose heartbeat lapsed. */
  nodeReaped?(nodeId: string): void;
  /** This node rewrote its own share of the state (at start, after an outage, or after being reaped). */
  resynced?(): void;
}

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
  readonly logger?: Logger | undefined;
  readonly metrics?: ScalingMetrics | undefined;
}

/** The adapter with a crash switch, for tests of dead-node cleanup. */
export interface RedisClusterNode extends ClusterAdapter {
  /** Stops the heartbeat and drops the connections without any cleanup, as a SIGKILL would. */
  crash(): void;
}

const DEFAULT_CHANNEL = 'herald:broadcast';
const DEFAULT_PREFIX = 'herald:';

const toStrings = (reply: unknown): string[] =>
  Array.isArray(reply) ? reply.map((value) => String(value)) : [];

function pairs(flat: readonly string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i] ?? '', flat[i + 1] ?? '']);
  return out;
}

function parseInfo(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return null; // Written by this adapter with JSON.stringify; only a foreign writer could break it.
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

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
export function createRedisCluster(options: RedisClusterOptions = {}): ClusterAdapter {
  return createRedisClusterNode(options);
}

/** {@link createRedisCluster} with the crash switch tests need; not exported from the package. */
export function createRedisClusterNode(options: RedisClusterOptions = {}): RedisClusterNode {
  const nodeId = options.nodeId ?? randomBytes(8).toString('hex');
  const channelName = options.channel ?? DEFAULT_CHANNEL;
  const keys = createKeys(options.keyPrefix ?? DEFAULT_PREFIX);
  const heartbeatMs = options.heartbeatMs ?? 2000;
  const deadAfterMs = options.deadAfterMs ?? heartbeatMs * 3;
  const lockMs = Math.max(deadAfterMs * 5, 10_000);
  const logger = options.logger ?? silentLogger;
  const metrics = options.metrics ?? {};
  if (!(heartbeatMs > 0) || !(deadAfterMs > heartbeatMs)) {
    throw new ScalingRedisError('invalid_options', 'deadAfterMs must be greater than heartbeatMs > 0');
  }

  let listener: ClusterListener | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let tickInFlight: Promise<void> | undefined;
  // Set when a write may have been lost or the node may have been reaped: the next heartbeat rewrites its share.
  let stale = true;
  let outage = false;
  let lapsedNodes: string[] = [];
  // Live nodes at the last heartbeat: after Redis restarts empty, the others show up only as they heartbeat again.
  let knownLive = 1;
  // What this node asked Redis to hold, kept so its share can be rewritten after an outage.
  const connections = new Map<string, number>();
  const subscriptions = new Map<string, Map<string, number>>();
  const presence = new Map<string, Map<string, PresenceMember>>();
  const knownApps = new Set<string>();
  // Channels whose occupancy (this node holding subscribers) Redis last acknowledged, per app: a resync compares
  // against it to report the occupied/vacated changes that happened while Redis was away, and only those.
  const occupied = new Map<string, Set<string>>();
  // Users this node holds signed-in sockets of (what it asked Redis to hold), and what Redis last acknowledged.
  const signedIn = new Map<string, Set<string>>();
  const onlineAcked = new Map<string, Set<string>>();
  const userChains = new Map<string, Promise<void>>();
  // member_added/member_removed found by a resync or a reap and not yet published: Redis already holds the change,
  // so a later sync finds nothing to announce and these are kept until a publish succeeds. One per user and
  // channel, the latest winning, so the map stays as small as the presence state it describes.
  const announcements = new Map<string, ClusterDelivery>();

  const link: RedisLink = createRedisLink(options, {
    error: (error) => fail('connection', error),
    reconnecting: () => logger.debug('redis reconnecting', { nodeId }),
    ready: () => {
      logger.info('redis connection ready again', { nodeId });
      stale = true;
      void tick();
    },
  });

  function fail(operation: string, error: unknown): void {
    stale = true;
    metrics.error?.(operation);
    const fields = { nodeId, operation, error: messageOf(error) };
    if (outage) {
      logger.debug('redis operation failed', fields);
    } else {
      outage = true;
      logger.warn('redis unavailable: local delivery goes on, cluster state will be rebuilt', fields);
    }
  }

  /** Fires a write that must never throw into the server; a failure marks the share for rewriting. */
  function write(operation: string, run: () => Promise<unknown>): void {
    try {
      run().catch((error: unknown) => fail(operation, error));
    } catch (error) {
      fail(operation, error);
    }
  }

  async function read<T>(operation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      fail(operation, error);
      throw new ScalingRedisError('unavailable', `Redis is unavailable (${operation})`, { cause: error });
    }
  }

  const send = (key: string, ...args: string[]) => link.send(key, args);

  function publish(message: ClusterMessage): void {
    write('publish', async () => {
      await link.publish(channelName, encodeWireMessage(nodeId, message));
      metrics.messageSent?.(message.type);
    });
  }

  function noteApp(appId: string): void {
    if (knownApps.has(appId)) return;
    knownApps.add(appId);
    // Before the count it indexes, so that a reaper always finds what this node wrote.
    write('index', () => send(keys.nodeApps(nodeId), 'SADD', keys.nodeApps(nodeId), appId));
  }

  function onMessage(raw: string): void {
    const decoded = decodeWireMessage(raw);
    if (!decoded) {
      metrics.error?.('decode');
      logger.warn('ignored a broadcast not in Herald format', { nodeId, channel: channelName });
      return;
    }
    if (decoded.nodeId === nodeId || !listener) return;
    const { message } = decoded;
    metrics.messageReceived?.(message.type);
    try {
      if (message.type === 'deliver') listener.deliver(message.delivery);
      else if (message.type === 'terminate') listener.terminate(message.appId, message.userId);
      else if (message.type === 'count') listener.countChanged?.(message.appId, message.channel);
      else if (message.type === 'user') listener.userChanged?.(message.appId, message.userId, message.online);
      else listener.restart();
    } catch (error) {
      metrics.error?.('listener');
      logger.error('listener failed on a cluster message', {
        nodeId,
        type: message.type,
        error: messageOf(error),
      });
    }
  }

  /** Tells this node's listener of a change it is the one to report. */
  function tell(change: ClusterChannelChange): void {
    try {
      listener?.channelChanged?.(change);
    } catch (error) {
      metrics.error?.('listener');
      logger.error('listener failed on a channel change', {
        nodeId,
        type: change.type,
        error: messageOf(error),
      });
    }
  }

  /**
   * Records in a node-set key (a channel's subscribers, a user's signed-in sockets) whether `node` holds any; answers
   * +1 when that made the set non-empty cluster-wide, -1 when it emptied it, 0 otherwise (or when `quiet`, for
   * rewriting a share Redis may have lost). This node's own acknowledged memberships are kept in `acked`.
   */
  async function markMembership(
    key: string,
    member: { node: string; appId: string; name: string; holds: boolean },
    acked: Map<string, Set<string>>,
    quiet: boolean,
  ): Promise<number> {
    const { node, appId, name, holds } = member;
    const reply = await runScript(link, lua.occupancy, [key], [node, holds ? '1' : '0']);
    if (node === nodeId) {
      const names = acked.get(appId) ?? new Set<string>();
      acked.set(appId, names);
      if (holds) names.add(name);
      else names.delete(name);
    }
    return quiet ? 0 : Number(reply);
  }

  /** A channel gained its first subscriber or lost its last one, cluster-wide: reported by this node. */
  async function markOccupancy(
    node: string,
    appId: string,
    channel: string,
    holds: boolean,
    quiet = false,
  ): Promise<void> {
    const member = { node, appId, name: channel, holds };
    const change = await markMembership(keys.occupancy(appId, channel), member, occupied, quiet);
    if (change === 1) tell({ type: 'occupied', appId, channel });
    else if (change === -1) tell({ type: 'vacated', appId, channel });
  }

  /** Tells every node, this one included, that a user came online or went offline. */
  function announceUser(appId: string, userId: string, online: boolean): void {
    try {
      listener?.userChanged?.(appId, userId, online);
    } catch (error) {
      metrics.error?.('listener');
      logger.error('listener failed on a user change', { nodeId, error: messageOf(error) });
    }
    publish({ type: 'user', appId, userId, online });
  }

  /** A user gained their first signed-in socket or lost their last one, cluster-wide: told to every node. */
  async function markUser(
    node: string,
    appId: string,
    userId: string,
    holds: boolean,
    quiet = false,
  ): Promise<void> {
    const member = { node, appId, name: userId, holds };
    const change = await markMembership(keys.online(appId, userId), member, onlineAcked, quiet);
    if (change !== 0) announceUser(appId, userId, change === 1);
  }

  /** Queues a presence change for the other nodes (sent by {@link flushAnnouncements}). */
  function announce(appId: string, channel: string, userId: string, frame: string): void {
    const key = JSON.stringify([appId, channel, userId]);
    announcements.delete(key); // Re-inserted last, so the map keeps the order of the changes.
    announcements.set(key, { appId, channel, frame });
  }

  /**
   * Publishes the queued presence changes; a failure leaves the unsent ones queued for the next heartbeat. With
   * `waitForSubscribers`, first waits (boundedly) until the other nodes have resubscribed after an outage.
   */
  async function flushAnnouncements(waitForSubscribers: boolean): Promise<void> {
    if (!announcements.size) return;
    if (waitForSubscribers) await awaitSubscribers();
    await Promise.all(
      [...announcements].map(async ([key, delivery]) => {
        await link.publish(channelName, encodeWireMessage(nodeId, { type: 'deliver', delivery }));
        metrics.messageSent?.('deliver');
        if (announcements.get(key) === delivery) announcements.delete(key);
      }),
    );
  }

  /** A member_removed found by cleanup: delivered to this node's sockets now, queued for every other node. */
  function announceRemoved(appId: string, channel: string, userId: string, local: boolean): void {
    const delivery = { appId, channel, frame: encodeMemberRemoved(channel, userId) };
    tell({ type: 'member_removed', appId, channel, userId });
    if (local) {
      try {
        listener?.deliver(delivery);
      } catch (error) {
        logger.error('listener failed on member_removed', {
          nodeId,
          appId,
          channel,
          error: messageOf(error),
        });
      }
    }
    announce(appId, channel, userId, delivery.frame);
  }

  async function syncChannel(
    ref: string,
    sockets: ReadonlyMap<string, PresenceMember>,
    owner: string,
  ): Promise<{ appId: string; channel: string; removed: string[]; added: string[] }> {
    const [appId = '', channel = ''] = JSON.parse(ref) as [string, string];
    const args = [`${owner}|`];
    for (const [socketId, member] of sockets) {
      args.push(socketId, member.userId, JSON.stringify(member.userInfo ?? null));
    }
    const reply = await runScript(link, lua.syncNodeSockets, keys.presence(appId, channel), args);
    const [removed, added] = Array.isArray(reply) ? reply : [];
    return { appId, channel, removed: toStrings(removed), added: toStrings(added) };
  }

  async function lock(target: string): Promise<string | undefined> {
    const token = `${nodeId}:${randomBytes(6).toString('hex')}`;
    const key = keys.nodeLock(target);
    const reply = await send(key, 'SET', key, token, 'NX', 'PX', String(lockMs));
    return reply === 'OK' ? token : undefined;
  }

  async function unlock(target: string, token: string): Promise<void> {
    await runScript(link, lua.unlock, [keys.nodeLock(target)], [token]);
  }

  /** Removes a node's counts and index keys (its presence sockets are handled by the caller). */
  async function dropCounts(target: string, apps: readonly string[]): Promise<void> {
    await Promise.all(
      apps.flatMap((appId) => [
        send(keys.connections(appId), 'HDEL', keys.connections(appId), target),
        send(keys.nodeSubscriptions(target, appId), 'DEL', keys.nodeSubscriptions(target, appId)),
        send(keys.nodeUsers(target, appId), 'DEL', keys.nodeUsers(target, appId)),
      ]),
    );
    await send(keys.nodePresence(target), 'DEL', keys.nodePresence(target), keys.nodeApps(target));
  }

  /** Rewrites this node's share from the server's state and the writes this adapter was asked to make. */
  async function resync(): Promise<void> {
    const active = listener;
    if (!active) return;
    const token = await lock(nodeId);
    if (!token) return; // A survivor is reaping this node right now; the next heartbeat tries again.
    try {
      const [indexed, apps] = await Promise.all([
        send(keys.nodePresence(nodeId), 'SMEMBERS', keys.nodePresence(nodeId)).then(toStrings),
        send(keys.nodeApps(nodeId), 'SMEMBERS', keys.nodeApps(nodeId)).then(toStrings),
      ]);
      // Read the server's state only now, right before the writes, so nothing written meanwhile is undone.
      const state = active.localState();
      for (const { appId, count } of state.connections) {
        if (!connections.has(appId)) connections.set(appId, count);
      }
      for (const { appId, channel, count } of state.subscriptions) {
        const counts = subscriptions.get(appId) ?? new Map<string, number>();
        subscriptions.set(appId, counts);
        if (!counts.has(channel) && count > 0) counts.set(channel, count);
      }
      for (const { appId, channel, socketId, member } of state.presence) {
        const ref = JSON.stringify([appId, channel]);
        const sockets = presence.get(ref) ?? new Map<string, PresenceMember>();
        presence.set(ref, sockets);
        if (!sockets.has(socketId)) sockets.set(socketId, member);
      }
      const allApps = new Set([...apps, ...connections.keys(), ...subscriptions.keys(), ...signedIn.keys()]);
      const refs = new Set([...indexed, ...presence.keys()]);
      const writes: Array<Promise<unknown>> = [];
      if (allApps.size) writes.push(send(keys.nodeApps(nodeId), 'SADD', keys.nodeApps(nodeId), ...allApps));
      if (presence.size) {
        writes.push(send(keys.nodePresence(nodeId), 'SADD', keys.nodePresence(nodeId), ...presence.keys()));
      }
      for (const appId of allApps) {
        const count = connections.get(appId) ?? 0;
        const key = keys.connections(appId);
        writes.push(
          count > 0 ? send(key, 'HSET', key, nodeId, String(count)) : send(key, 'HDEL', key, nodeId),
        );
        const flat = [...(subscriptions.get(appId) ?? [])].flatMap(([channel, n]) => [channel, String(n)]);
        writes.push(runScript(link, lua.replaceHash, [keys.nodeSubscriptions(nodeId, appId)], flat));
        // Occupancy as it is now: what changed since Redis last acknowledged it is reported (late, but once);
        // what did not is rewritten quietly, in case Redis lost it.
        const now = subscriptions.get(appId) ?? new Map<string, number>();
        const acked = occupied.get(appId) ?? new Set<string>();
        for (const channel of new Set([...now.keys(), ...acked])) {
          const holds = (now.get(channel) ?? 0) > 0;
          writes.push(markOccupancy(nodeId, appId, channel, holds, holds === acked.has(channel)));
        }
        // Signed-in users alike: the index rewritten, online/offline reported for what changed meanwhile.
        const users = signedIn.get(appId) ?? new Set<string>();
        const usersKey = keys.nodeUsers(nodeId, appId);
        writes.push(
          send(usersKey, 'DEL', usersKey).then(() =>
            users.size > 0 ? send(usersKey, 'SADD', usersKey, ...users) : undefined,
          ),
        );
        const ackedUsers = onlineAcked.get(appId) ?? new Set<string>();
        for (const userId of new Set([...users, ...ackedUsers])) {
          const holds = users.has(userId);
          writes.push(markUser(nodeId, appId, userId, holds, holds === ackedUsers.has(userId)));
        }
      }
      const synced = [...refs].map((ref) => syncChannel(ref, presence.get(ref) ?? new Map(), nodeId));
      // Settled together: with one master of a Redis Cluster down, some of these fail while others succeed. A
      // rejection nobody awaits would be unhandled (which ends a Node process), and the changes of the syncs that
      // succeeded are in Redis already: they must be announced even though the resync as a whole failed.
      const [written, syncs] = await Promise.all([Promise.allSettled(writes), Promise.allSettled(synced)]);
      for (const sync of syncs) {
        if (sync.status === 'rejected') continue;
        const { appId, channel, removed, added } = sync.value;
        // Sockets that left while Redis was away: nobody has been told yet, this node included.
        for (const userId of removed) announceRemoved(appId, channel, userId, true);
        // Users made new again (survivors reaped this node meanwhile): this node's sockets never saw them go.
        const sockets = presence.get(JSON.stringify([appId, channel]));
        for (const userId of added) {
          const member = [...(sockets?.values() ?? [])].find((each) => each.userId === userId);
          announce(appId, channel, userId, encodeMemberAdded(channel, userId, member?.userInfo));
        }
      }
      const failed = [...written, ...syncs].find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
      await flushAnnouncements(true);
      const emptied = [...refs].filter((ref) => !presence.has(ref));
      if (emptied.length)
        await send(keys.nodePresence(nodeId), 'SREM', keys.nodePresence(nodeId), ...emptied);
      for (const appId of allApps) knownApps.add(appId);
      stale = false;
      metrics.resynced?.();
      logger.info('rewrote this node share of the cluster state', {
        nodeId,
        apps: allApps.size,
        presenceChannels: presence.size,
      });
    } finally {
      await unlock(nodeId, token);
    }
  }

  /**
   * After an outage every node reconnects on its own backoff: announcements published before the others have
   * resubscribed would be lost. Waits (at most `deadAfterMs`) until as many nodes listen as were live before (or
   * are live now), this one included.
   */
  async function awaitSubscribers(): Promise<void> {
    const deadline = Date.now() + deadAfterMs;
    while (Date.now() < deadline) {
      const [nodes, listening] = await Promise.all([liveNodes(), link.subscribers(channelName)]);
      if (listening >= Math.max(nodes.length, knownLive)) return;
      await new Promise((resolve) => setTimeout(resolve, Math.min(50, heartbeatMs)));
    }
    logger.warn('announcing presence changes before every node resubscribed', { nodeId });
  }

  /** Removes the share of a node whose heartbeat lapsed, unless another survivor is already doing it. */
  async function reap(target: string): Promise<void> {
    const token = await lock(target);
    if (!token) return;
    try {
      const lapsed = await runScript(
        link,
        lua.lapsedNode,
        [keys.nodes],
        [target, String(deadAfterMs), 'check'],
      );
      if (lapsed !== 1) return; // It came back, or another survivor finished first.
      logger.warn('reaping a dead node', { nodeId, deadNode: target });
      const [refs, apps] = await Promise.all([
        send(keys.nodePresence(target), 'SMEMBERS', keys.nodePresence(target)).then(toStrings),
        send(keys.nodeApps(target), 'SMEMBERS', keys.nodeApps(target)).then(toStrings),
      ]);
      const synced = await Promise.all(refs.map((ref) => syncChannel(ref, new Map(), target)));
      let removedMembers = 0;
      for (const { appId, channel, removed } of synced) {
        for (const userId of removed) announceRemoved(appId, channel, userId, true);
        removedMembers += removed.length;
      }
      await flushAnnouncements(false);
      // The dead node's channels: those it was the last to hold are vacated now, reported by this survivor.
      const held = await Promise.all(
        apps.map(async (appId) => {
          const key = keys.nodeSubscriptions(target, appId);
          return { appId, channels: toStrings(await send(key, 'HKEYS', key)) };
        }),
      );
      await Promise.all(
        held.flatMap(({ appId, channels }) =>
          channels.map((channel) => markOccupancy(target, appId, channel, false)),
        ),
      );
      // Its signed-in users: those it was the last to hold go offline, told to every node by this survivor.
      const heldUsers = await Promise.all(
        apps.map(async (appId) => {
          const key = keys.nodeUsers(target, appId);
          return { appId, users: toStrings(await send(key, 'SMEMBERS', key)) };
        }),
      );
      await Promise.all(
        heldUsers.flatMap(({ appId, users }) =>
          users.map((userId) => markUser(target, appId, userId, false)),
        ),
      );
      await dropCounts(target, apps);
      await runScript(link, lua.lapsedNode, [keys.nodes], [target, String(deadAfterMs), 'remove']);
      metrics.nodeReaped?.(target);
      logger.info('reaped a dead node', { nodeId, deadNode: target, removedMembers, apps: apps.length });
    } finally {
      await unlock(target, token);
    }
  }

  async function heartbeatAndClean(): Promise<void> {
    const reply = await runScript(link, lua.heartbeat, [keys.nodes], [nodeId, String(deadAfterMs)]);
    if (reply === 1) stale = true;
    if (stale) await resync();
    // Left over from a resync or reap whose publish failed.
    await flushAnnouncements(true);
    // Only now, and only once every connection is back: in a Redis Cluster the heartbeat's master may answer
    // while another master is still down, and the outage would otherwise be logged over and over.
    if (outage && link.ready()) {
      outage = false;
      logger.info('redis available again', { nodeId });
    }
    const lapsed = await runScript(link, lua.nodesByState, [keys.nodes], [String(deadAfterMs), 'lapsed']);
    lapsedNodes = toStrings(lapsed).filter((id) => id !== nodeId);
    for (const target of lapsedNodes) await reap(target);
    knownLive = (await liveNodes()).length;
  }

  function tick(): Promise<void> {
    if (!running) return Promise.resolve();
    if (!tickInFlight) {
      tickInFlight = heartbeatAndClean()
        .catch((error: unknown) => fail('heartbeat', error))
        .finally(() => {
          tickInFlight = undefined;
        });
    }
    return tickInFlight;
  }

  function presenceRef(appId: string, channel: string): string {
    return JSON.stringify([appId, channel]);
  }

  async function liveNodes(): Promise<string[]> {
    return toStrings(await runScript(link, lua.nodesByState, [keys.nodes], [String(deadAfterMs), 'live']));
  }

  async function userCount(appId: string, channel: string): Promise<number> {
    const [, users] = keys.presence(appId, channel);
    return Number(await send(users, 'HLEN', users));
  }

  const isPresence = (channel: string) => channel.startsWith('presence-');

  return {
    nodeId,

    async start(serverListener) {
      listener = serverListener;
      try {
        await link.connect();
        await link.subscribe(channelName, onMessage);
      } catch (error) {
        listener = undefined;
        link.destroy();
        throw new ScalingRedisError('unavailable', 'Could not connect to Redis', { cause: error });
      }
      running = true;
      await tick();
      timer = setInterval(() => void tick(), heartbeatMs);
      timer.unref();
      logger.info('joined the cluster', { nodeId, channel: channelName, clusterMode: link.clusterMode });
    },

    async stop() {
      if (!running) return;
      running = false;
      clearInterval(timer);
      await tickInFlight;
      try {
        const [indexed, apps] = await Promise.all([
          send(keys.nodePresence(nodeId), 'SMEMBERS', keys.nodePresence(nodeId)).then(toStrings),
          send(keys.nodeApps(nodeId), 'SMEMBERS', keys.nodeApps(nodeId)).then(toStrings),
        ]);
        const refs = new Set([...indexed, ...presence.keys()]);
        const synced = await Promise.all([...refs].map((ref) => syncChannel(ref, new Map(), nodeId)));
        for (const { appId, channel, removed } of synced) {
          for (const userId of removed) announceRemoved(appId, channel, userId, false);
        }
        await flushAnnouncements(false);
        await dropCounts(nodeId, [...new Set([...apps, ...knownApps])]);
        await send(keys.nodes, 'ZREM', keys.nodes, nodeId);
        logger.info('left the cluster', { nodeId });
      } catch (error) {
        fail('stop', error);
        logger.warn('could not remove this node share; survivors will reap it', { nodeId });
      }
      listener = undefined;
      await link.close().catch(() => link.destroy());
    },

    crash() {
      running = false;
      clearInterval(timer);
      listener = undefined;
      link.destroy();
    },

    broadcast(message) {
      publish(message);
    },

    async admitConnection(appId, maxConnections) {
      noteApp(appId);
      const key = keys.connections(appId);
      try {
        const reply = await runScript(
          link,
          lua.admitConnection,
          [key],
          [nodeId, String(maxConnections), ...lapsedNodes],
        );
        if (reply !== 1) return false;
      } catch (error) {
        // Failing open: an outage must not lock every user out. The count is rewritten once Redis is back.
        fail('admit', error);
        if ((connections.get(appId) ?? 0) >= maxConnections) return false;
      }
      connections.set(appId, (connections.get(appId) ?? 0) + 1);
      return true;
    },

    releaseConnection(appId) {
      connections.set(appId, Math.max(0, (connections.get(appId) ?? 0) - 1));
      write('release', () => runScript(link, lua.releaseConnection, [keys.connections(appId)], [nodeId]));
    },

    async joinPresence({ appId, channel, socketId, member, maxMembers }): Promise<ClusterPresenceJoin> {
      const ref = presenceRef(appId, channel);
      let sockets = presence.get(ref);
      if (!sockets) {
        sockets = new Map();
        presence.set(ref, sockets);
        write('index', () => send(keys.nodePresence(nodeId), 'SADD', keys.nodePresence(nodeId), ref));
      }
      const isNew = !sockets.has(socketId);
      sockets.set(socketId, member);
      const forget = () => {
        if (!isNew) return;
        sockets.delete(socketId);
        if (sockets.size === 0 && presence.get(ref) === sockets) presence.delete(ref);
      };
      let reply: unknown;
      try {
        reply = await runScript(link, lua.joinPresence, keys.presence(appId, channel), [
          socketField(nodeId, socketId),
          member.userId,
          JSON.stringify(member.userInfo ?? null),
          String(maxMembers),
        ]);
      } catch (error) {
        forget();
        fail('join', error);
        throw new ScalingRedisError('unavailable', 'Redis is unavailable (join)', { cause: error });
      }
      const [accepted, added, flat] = Array.isArray(reply) ? reply : [];
      if (accepted !== 1) forget();
      const members = pairs(toStrings(flat));
      return {
        accepted: accepted === 1,
        added: added === 1,
        snapshot: {
          ids: members.map(([id]) => id),
          hash: Object.fromEntries(members.map(([id, info]) => [id, parseInfo(info)])),
          count: members.length,
        },
      };
    },

    async leavePresence(appId, channel, socketId): Promise<ClusterPresenceLeave> {
      const ref = presenceRef(appId, channel);
      const sockets = presence.get(ref);
      sockets?.delete(socketId);
      if (sockets?.size === 0) presence.delete(ref);
      const reply = await read('leave', () =>
        runScript(link, lua.leavePresence, keys.presence(appId, channel), [socketField(nodeId, socketId)]),
      );
      // Unindexed only after the leave succeeded and no new socket joined meanwhile (a join re-adds it first).
      if (!presence.has(ref)) {
        write('index', () => send(keys.nodePresence(nodeId), 'SREM', keys.nodePresence(nodeId), ref));
      }
      const [removed, userId] = Array.isArray(reply) ? reply : [];
      return { removed: removed === 1, userId: userId === undefined ? undefined : String(userId) };
    },

    setLocalSubscriptions(appId, channel, count) {
      const counts = subscriptions.get(appId) ?? new Map<string, number>();
      subscriptions.set(appId, counts);
      // Only this node's first subscriber or its last one leaving can change the channel's cluster-wide occupancy.
      if (counts.has(channel) !== count > 0) {
        write('occupancy', () => markOccupancy(nodeId, appId, channel, count > 0));
      }
      if (count > 0) counts.set(channel, count);
      else counts.delete(channel);
      noteApp(appId);
      const key = keys.nodeSubscriptions(nodeId, appId);
      write('subscriptions', () =>
        count > 0 ? send(key, 'HSET', key, channel, String(count)) : send(key, 'HDEL', key, channel),
      );
    },

    setLocalUser(appId, userId, holds) {
      const users = signedIn.get(appId) ?? new Set<string>();
      signedIn.set(appId, users);
      if (users.has(userId) === holds) return;
      if (holds) users.add(userId);
      else users.delete(userId);
      noteApp(appId);
      const key = keys.nodeUsers(nodeId, appId);
      // Ordered so a reaper always finds, in the index, a user this node may hold online: the index entry is
      // written before the user is marked online and removed after the mark is gone.
      // One user's changes run one after the other, so a quick sign-out and sign-in end as they happened.
      const chainKey = `${appId}\u0000${userId}`;
      const previous = userChains.get(chainKey) ?? Promise.resolve();
      const next = previous.then(async () => {
        if (holds) await send(key, 'SADD', key, userId);
        await markUser(nodeId, appId, userId, holds);
        if (!holds) await send(key, 'SREM', key, userId);
      });
      const settled = next.catch((error: unknown) => fail('online', error));
      userChains.set(chainKey, settled);
      void settled.then(() => {
        if (userChains.get(chainKey) === settled) userChains.delete(chainKey);
      });
    },

    async onlineUsers(appId, userIds) {
      const cards = await read('online', () =>
        Promise.all(
          userIds.map((userId) => send(keys.online(appId, userId), 'SCARD', keys.online(appId, userId))),
        ),
      );
      return userIds.filter((_, index) => Number(cards[index]) > 0);
    },

    storeCachedEvent(appId, channel, event, ttlMs) {
      write('cache', () =>
        runScript(
          link,
          lua.storeCachedEvent,
          [keys.cache(appId, channel)],
          [event.event, event.data, event.frame, String(Math.max(1, Math.round(ttlMs)))],
        ),
      );
    },

    async cachedEvent(appId, channel): Promise<ClusterCachedEvent | undefined> {
      const reply = await read('cache', () =>
        runScript(link, lua.readCachedEvent, [keys.cache(appId, channel)], []),
      );
      const [event, data, frame, ttl] = Array.isArray(reply) ? reply : [];
      if (event === undefined) return undefined;
      return { event: String(event), data: String(data), frame: String(frame), ttlMs: Number(ttl) };
    },

    async channels(appId, prefix) {
      return read('channels', async () => {
        const nodes = await liveNodes();
        const hashes = await Promise.all(
          nodes.map((node) => {
            const key = keys.nodeSubscriptions(node, appId);
            return send(key, 'HGETALL', key).then(toStrings);
          }),
        );
        const totals = new Map<string, number>();
        for (const flat of hashes) {
          for (const [channel, count] of pairs(flat)) {
            if (prefix && !channel.startsWith(prefix)) continue;
            totals.set(channel, (totals.get(channel) ?? 0) + Number(count));
          }
        }
        return Promise.all(
          [...totals].map(async ([name, subscriptionCount]) =>
            isPresence(name)
              ? { name, subscriptionCount, userCount: await userCount(appId, name) }
              : { name, subscriptionCount },
          ),
        );
      });
    },

    async channel(appId, name): Promise<ClusterChannelCounts> {
      return read('channel', async () => {
        const nodes = await liveNodes();
        const counts = await Promise.all(
          nodes.map((node) => {
            const key = keys.nodeSubscriptions(node, appId);
            return send(key, 'HGET', key, name);
          }),
        );
        const subscriptionCount = counts.reduce<number>((sum, count) => sum + Number(count ?? 0), 0);
        return isPresence(name)
          ? { subscriptionCount, userCount: await userCount(appId, name) }
          : { subscriptionCount };
      });
    },

    async presenceUsers(appId, name) {
      const [, users] = keys.presence(appId, name);
      return read('presence users', async () => toStrings(await send(users, 'HKEYS', users)));
    },

    async connectionCount(appId) {
      return read('connections', async () => {
        const key = keys.connections(appId);
        const [nodes, flat] = await Promise.all([liveNodes(), send(key, 'HGETALL', key).then(toStrings)]);
        const live = new Set(nodes);
        return pairs(flat).reduce((sum, [node, count]) => (live.has(node) ? sum + Number(count) : sum), 0);
      });
    },
  };
}
