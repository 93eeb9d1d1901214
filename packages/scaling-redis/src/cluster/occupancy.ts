import type { ClusterChannelCounts } from '@herald/protocol-core';
import type { Connections } from './connections.js';
import { type NodeContext, pairs, toStrings } from './context.js';
import { markMembership } from './membership.js';
import type { Messaging } from './messaging.js';
import type { Presence } from './presence.js';

/** Channel subscription counts per node, and each channel's occupancy (some node holding subscribers). */
export interface Occupancy {
  /** This node's subscriber count per app and channel: what it asked Redis to hold. */
  readonly subscriptions: Map<string, Map<string, number>>;
  /**
   * Channels whose occupancy (this node holding subscribers) Redis last acknowledged, per app: a resync compares
   * against it to report the occupied/vacated changes that happened while Redis was away, and only those.
   */
  readonly occupied: Map<string, Set<string>>;
  /** Records this node's subscriber count of a channel (0 removes its share). */
  setLocal(appId: string, channel: string, count: number): void;
  /** Marks whether `node` holds subscribers; reports `occupied`/`vacated` when that changed it cluster-wide. */
  mark(node: string, appId: string, channel: string, holds: boolean, quiet?: boolean): Promise<void>;
  /** The channels a node counted subscribers of, for one app. */
  held(node: string, appId: string): Promise<string[]>;
  channels(appId: string, prefix?: string): Promise<Array<{ readonly name: string } & ClusterChannelCounts>>;
  channel(appId: string, name: string): Promise<ClusterChannelCounts>;
}

const isPresence = (channel: string) => channel.startsWith('presence-');

export function createOccupancy(
  context: NodeContext,
  rooms: { readonly messaging: Messaging; readonly connections: Connections; readonly presence: Presence },
): Occupancy {
  const { nodeId, keys } = context;
  const { messaging, connections, presence } = rooms;
  const subscriptions = new Map<string, Map<string, number>>();
  const occupied = new Map<string, Set<string>>();

  async function mark(node: string, appId: string, channel: string, holds: boolean, quiet = false) {
    const member = { node, appId, name: channel, holds };
    const change = await markMembership(context, keys.occupancy(appId, channel), member, {
      acked: occupied,
      quiet,
    });
    if (change === 1) messaging.tell({ type: 'occupied', appId, channel });
    else if (change === -1) messaging.tell({ type: 'vacated', appId, channel });
  }

  return {
    subscriptions,
    occupied,
    mark,

    setLocal(appId, channel, count) {
      const counts = subscriptions.get(appId) ?? new Map<string, number>();
      subscriptions.set(appId, counts);
      // Only this node's first subscriber or its last one leaving can change the channel's cluster-wide occupancy.
      if (counts.has(channel) !== count > 0) {
        context.write('occupancy', () => mark(nodeId, appId, channel, count > 0));
      }
      if (count > 0) counts.set(channel, count);
      else counts.delete(channel);
      connections.noteApp(appId);
      const key = keys.nodeSubscriptions(nodeId, appId);
      context.write('subscriptions', () =>
        count > 0
          ? context.send(key, 'HSET', key, channel, String(count))
          : context.send(key, 'HDEL', key, channel),
      );
    },

    async held(node, appId) {
      const key = keys.nodeSubscriptions(node, appId);
      return toStrings(await context.send(key, 'HKEYS', key));
    },

    channels(appId, prefix) {
      return context.read('channels', async () => {
        const nodes = await context.liveNodes();
        const hashes = await Promise.all(
          nodes.map((node) => {
            const key = keys.nodeSubscriptions(node, appId);
            return context.send(key, 'HGETALL', key).then(toStrings);
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
              ? { name, subscriptionCount, userCount: await presence.userCount(appId, name) }
              : { name, subscriptionCount },
          ),
        );
      });
    },

    channel(appId, name) {
      return context.read('channel', async () => {
        const nodes = await context.liveNodes();
        const counts = await Promise.all(
          nodes.map((node) => {
            const key = keys.nodeSubscriptions(node, appId);
            return context.send(key, 'HGET', key, name);
          }),
        );
        const subscriptionCount = counts.reduce<number>((sum, count) => sum + Number(count ?? 0), 0);
        return isPresence(name)
          ? { subscriptionCount, userCount: await presence.userCount(appId, name) }
          : { subscriptionCount };
      });
    },
  };
}
