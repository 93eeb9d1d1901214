import * as lua from '../internal/scripts.js';
import { runScript } from '../internal/scripts.js';
import { type NodeContext, toStrings } from './context.js';
import { dropCounts } from './locks.js';
import type { ShareRooms } from './resync.js';

/** The node's heartbeat, the reaping of nodes whose heartbeat lapsed, and leaving the cluster cleanly. */
export interface Heartbeat {
  /** Starts beating: one beat now (rewriting the share), then every `heartbeatMs`. */
  start(): Promise<void>;
  /** Stops beating; waits for a beat in flight. */
  stop(): Promise<void>;
  /** Stops at once, without waiting (a crash). */
  halt(): void;
  /** One beat now, unless one is in flight (then that one). */
  tick(): Promise<void>;
  /** Removes this node's share from Redis and tells the others of the members it took away. */
  leave(): Promise<void>;
}

export function createHeartbeat(
  context: NodeContext,
  rooms: ShareRooms & {
    /** Rewrites this node's share (see resync.ts). */
    readonly resync: () => Promise<void>;
  },
): Heartbeat {
  const { nodeId, keys, link, logger, metrics, deadAfterMs } = context;
  const { messaging, connections, presence, occupancy, users, locks } = rooms;
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let inFlight: Promise<void> | undefined;
  let touching: Promise<void> | undefined;

  const appsOf = async (node: string) =>
    toStrings(await context.send(keys.nodeApps(node), 'SMEMBERS', keys.nodeApps(node)));

  /** Removes the share of a node whose heartbeat lapsed, unless another survivor is already doing it. */
  async function reap(target: string): Promise<void> {
    const token = await locks.lock(target);
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
      const [refs, apps] = await Promise.all([presence.indexed(target), appsOf(target)]);
      const synced = await Promise.all(refs.map((ref) => presence.sync(ref, new Map(), target)));
      let removedMembers = 0;
      for (const { appId, channel, removed } of synced) {
        for (const userId of removed) messaging.announceRemoved(appId, channel, userId, true);
        removedMembers += removed.length;
      }
      await messaging.flushAnnouncements(false);
      // The dead node's channels: those it was the last to hold are vacated now, reported by this survivor.
      const held = await Promise.all(
        apps.map(async (appId) => ({ appId, channels: await occupancy.held(target, appId) })),
      );
      await Promise.all(
        held.flatMap(({ appId, channels }) =>
          channels.map((channel) => occupancy.mark(target, appId, channel, false)),
        ),
      );
      // Its signed-in users: those it was the last to hold go offline, told to every node by this survivor.
      const heldUsers = await Promise.all(
        apps.map(async (appId) => ({ appId, userIds: await users.held(target, appId) })),
      );
      await Promise.all(
        heldUsers.flatMap(({ appId, userIds }) =>
          userIds.map((userId) => users.mark(target, appId, userId, false)),
        ),
      );
      await dropCounts(context, target, apps);
      await runScript(link, lua.lapsedNode, [keys.nodes], [target, String(deadAfterMs), 'remove']);
      metrics.nodeReaped(target);
      logger.info('reaped a dead node', { nodeId, deadNode: target, removedMembers, apps: apps.length });
    } finally {
      await locks.unlock(target, token);
    }
  }

  /** Writes this node's heartbeat; a lapsed (or reaped) one means its share must be rewritten. */
  async function mark(): Promise<void> {
    const reply = await runScript(link, lua.heartbeat, [keys.nodes], [nodeId, String(deadAfterMs)]);
    if (reply === 1) context.stale = true;
  }

  async function beat(): Promise<void> {
    await mark();
    if (context.stale) await rooms.resync();
    // Left over from a resync or reap whose publish failed.
    await messaging.flushAnnouncements(true);
    // Only now, and only once every connection is back: in a Redis Cluster the heartbeat's master may answer
    // while another master is still down, and the outage would otherwise be logged over and over.
    if (context.outage && link.ready()) {
      context.outage = false;
      logger.info('redis available again', { nodeId });
    }
    const lapsed = await runScript(link, lua.nodesByState, [keys.nodes], [String(deadAfterMs), 'lapsed']);
    context.lapsedNodes = toStrings(lapsed).filter((id) => id !== nodeId);
    for (const target of context.lapsedNodes) await reap(target);
    context.knownLive = (await context.liveNodes()).length;
  }

  /**
   * The heartbeat alone, while a beat is held up: a resync after an outage waits up to `deadAfterMs` for the other
   * nodes to resubscribe, and a node silent that long would look dead to the others (who would reap it, taking its
   * members away from every node) and to itself (which would rewrite its share once more).
   */
  function touch(): void {
    touching ??= mark()
      .catch((error: unknown) => context.fail('heartbeat', error))
      .finally(() => {
        touching = undefined;
      });
  }

  function tick(): Promise<void> {
    if (!running) return Promise.resolve();
    if (inFlight) {
      touch();
    } else {
      inFlight = beat()
        .catch((error: unknown) => context.fail('heartbeat', error))
        .finally(() => {
          inFlight = undefined;
        });
    }
    return inFlight;
  }

  return {
    tick,

    async start() {
      running = true;
      await tick();
      timer = setInterval(() => void tick(), context.heartbeatMs);
      timer.unref();
    },

    async stop() {
      running = false;
      clearInterval(timer);
      // A heartbeat landing after `leave` would put this node back in the cluster's list, to be reaped later.
      await Promise.all([inFlight, touching]);
    },

    halt() {
      running = false;
      clearInterval(timer);
    },

    async leave() {
      const [indexed, apps] = await Promise.all([presence.indexed(nodeId), appsOf(nodeId)]);
      const refs = new Set([...indexed, ...presence.sockets.keys()]);
      const synced = await Promise.all([...refs].map((ref) => presence.sync(ref, new Map(), nodeId)));
      for (const { appId, channel, removed } of synced) {
        for (const userId of removed) messaging.announceRemoved(appId, channel, userId, false);
      }
      await messaging.flushAnnouncements(false);
      await dropCounts(context, nodeId, [...new Set([...apps, ...connections.knownApps])]);
      await context.send(keys.nodes, 'ZREM', keys.nodes, nodeId);
    },
  };
}
