import type {
  ClusterAdapter,
  ClusterPresenceJoin,
  ClusterPresenceLeave,
  PresenceMember,
  PresenceSnapshot,
} from '@herald/protocol-core';
import { ScalingRedisError } from '../errors.js';
import { socketField } from '../internal/keys.js';
import * as lua from '../internal/scripts.js';
import { runScript } from '../internal/scripts.js';
import { type NodeContext, pairs, toStrings } from './context.js';

/** What a sync of one presence channel changed: users removed (no socket left) and users made new again. */
export interface PresenceSync {
  readonly appId: string;
  readonly channel: string;
  readonly removed: string[];
  readonly added: string[];
}

/** Presence channels across the cluster: members in Redis, this node's sockets in memory for rewriting. */
export interface Presence {
  /** This node's presence sockets, by channel ref (see `ref`): what it asked Redis to hold. */
  readonly sockets: Map<string, Map<string, PresenceMember>>;
  /** The index entry of a channel: JSON `[appId, channel]`. */
  ref(appId: string, channel: string): string;
  join(input: Parameters<ClusterAdapter['joinPresence']>[0]): Promise<ClusterPresenceJoin>;
  /** Takes in a socket the server holds and this adapter had not heard of (no Redis call: a resync writes it). */
  adopt(appId: string, channel: string, socketId: string, member: PresenceMember): void;
  leave(appId: string, channel: string, socketId: string): Promise<ClusterPresenceLeave>;
  /** Makes `owner`'s sockets in a channel exactly `sockets` (empty to remove a node's share). */
  sync(ref: string, sockets: ReadonlyMap<string, PresenceMember>, owner: string): Promise<PresenceSync>;
  /** The presence channels a node indexed. */
  indexed(node: string): Promise<string[]>;
  users(appId: string, channel: string): Promise<string[]>;
  /** Members of a presence channel with their `user_info`, from every node. */
  members(appId: string, channel: string): Promise<PresenceSnapshot>;
  /** Distinct users of a presence channel. */
  userCount(appId: string, channel: string): Promise<number>;
}

function parseInfo(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return null; // Written by this adapter with JSON.stringify; only a foreign writer could break it.
  }
}

/** A channel's info hash (user id → `user_info` JSON, as HGETALL answers it) as a presence snapshot. */
function snapshotOf(flat: unknown): PresenceSnapshot {
  const members = pairs(toStrings(flat));
  return {
    ids: members.map(([id]) => id),
    hash: Object.fromEntries(members.map(([id, info]) => [id, parseInfo(info)])),
    count: members.length,
  };
}

/**
 * `present` is told of each socket that starts (+1) or stops (-1) being present as a user here; it may answer a
 * promise that settles once the node receives that user's traffic (interest routing), which a join waits for.
 */
export function createPresence(
  context: NodeContext,
  present: (appId: string, userId: string, delta: 1 | -1) => Promise<void> | undefined,
): Presence {
  const { nodeId, keys, link } = context;
  const sockets = new Map<string, Map<string, PresenceMember>>();
  const ref = (appId: string, channel: string) => JSON.stringify([appId, channel]);
  const index = keys.nodePresence(nodeId);

  return {
    sockets,
    ref,

    async join({ appId, channel, socketId, member, maxMembers }) {
      const channelRef = ref(appId, channel);
      let held = sockets.get(channelRef);
      if (!held) {
        held = new Map();
        sockets.set(channelRef, held);
        context.write('index', () => context.send(index, 'SADD', index, channelRef));
      }
      const here = held;
      const previous = here.get(socketId);
      here.set(socketId, member);
      // The server joins a socket to a channel once; a repeated join counts the socket as present once, as whoever
      // it is now.
      if (previous !== undefined) void present(appId, previous.userId, -1);
      const routed = present(appId, member.userId, 1);
      const forget = () => {
        if (previous !== undefined || here.get(socketId) !== member) return;
        here.delete(socketId);
        void present(appId, member.userId, -1);
        if (here.size === 0 && sockets.get(channelRef) === here) sockets.delete(channelRef);
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
        context.fail('join', error);
        throw new ScalingRedisError('unavailable', 'Redis is unavailable (join)', { cause: error });
      }
      const [accepted, added, flat] = Array.isArray(reply) ? reply : [];
      if (accepted !== 1) forget();
      // Confirmed only once a terminate for the user reaches this node (the promise never rejects).
      else if (routed) await routed;
      return { accepted: accepted === 1, added: added === 1, snapshot: snapshotOf(flat) };
    },

    adopt(appId, channel, socketId, member) {
      const channelRef = ref(appId, channel);
      const held = sockets.get(channelRef) ?? new Map<string, PresenceMember>();
      sockets.set(channelRef, held);
      if (held.has(socketId)) return;
      held.set(socketId, member);
      void present(appId, member.userId, 1);
    },

    async leave(appId, channel, socketId) {
      const channelRef = ref(appId, channel);
      const held = sockets.get(channelRef);
      const member = held?.get(socketId);
      if (member !== undefined) {
        held?.delete(socketId);
        void present(appId, member.userId, -1);
      }
      if (held?.size === 0) sockets.delete(channelRef);
      const reply = await context.read('leave', () =>
        runScript(link, lua.leavePresence, keys.presence(appId, channel), [socketField(nodeId, socketId)]),
      );
      // Unindexed only after the leave succeeded and no new socket joined meanwhile (a join re-adds it first).
      if (!sockets.has(channelRef)) {
        context.write('index', () => context.send(index, 'SREM', index, channelRef));
      }
      const [removed, userId] = Array.isArray(reply) ? reply : [];
      return { removed: removed === 1, userId: userId === undefined ? undefined : String(userId) };
    },

    async sync(channelRef, wanted, owner) {
      const [appId = '', channel = ''] = JSON.parse(channelRef) as [string, string];
      const args = [`${owner}|`];
      for (const [socketId, member] of wanted) {
        args.push(socketId, member.userId, JSON.stringify(member.userInfo ?? null));
      }
      const reply = await runScript(link, lua.syncNodeSockets, keys.presence(appId, channel), args);
      const [removed, added] = Array.isArray(reply) ? reply : [];
      return { appId, channel, removed: toStrings(removed), added: toStrings(added) };
    },

    async indexed(node) {
      return toStrings(await context.send(keys.nodePresence(node), 'SMEMBERS', keys.nodePresence(node)));
    },

    users(appId, channel) {
      const [, users] = keys.presence(appId, channel);
      return context.read('presence users', async () => toStrings(await context.send(users, 'HKEYS', users)));
    },

    members(appId, channel) {
      const [, , info] = keys.presence(appId, channel);
      return context.read('presence members', async () =>
        snapshotOf(await context.send(info, 'HGETALL', info)),
      );
    },

    async userCount(appId, channel) {
      const [, users] = keys.presence(appId, channel);
      return Number(await context.send(users, 'HLEN', users));
    },
  };
}
