import type { Connections } from './connections.js';
import { type NodeContext, toStrings } from './context.js';
import { markMembership } from './membership.js';
import type { Messaging } from './messaging.js';

/** Signed-in users (watchlists): who holds them, and online/offline told once to every node. */
export interface Users {
  /** Users this node holds signed-in sockets of: what it asked Redis to hold. */
  readonly signedIn: Map<string, Set<string>>;
  /** The users Redis last acknowledged this node holding, per app. */
  readonly onlineAcked: Map<string, Set<string>>;
  /** Records whether this node holds signed-in sockets of a user. */
  setLocal(appId: string, userId: string, holds: boolean): void;
  /** Marks whether `node` holds a user; tells every node when that made the user online or offline. */
  mark(node: string, appId: string, userId: string, holds: boolean, quiet?: boolean): Promise<void>;
  /** The users a node indexed, for one app. */
  held(node: string, appId: string): Promise<string[]>;
  online(appId: string, userIds: readonly string[]): Promise<string[]>;
}

export function createUsers(
  context: NodeContext,
  rooms: { readonly messaging: Messaging; readonly connections: Connections },
): Users {
  const { nodeId, keys } = context;
  const { messaging, connections } = rooms;
  const signedIn = new Map<string, Set<string>>();
  const onlineAcked = new Map<string, Set<string>>();
  const chains = new Map<string, Promise<void>>();

  async function mark(node: string, appId: string, userId: string, holds: boolean, quiet = false) {
    const member = { node, appId, name: userId, holds };
    const change = await markMembership(context, keys.online(appId, userId), member, {
      acked: onlineAcked,
      quiet,
    });
    if (change !== 0) messaging.announceUser(appId, userId, change === 1);
  }

  return {
    signedIn,
    onlineAcked,
    mark,

    setLocal(appId, userId, holds) {
      const users = signedIn.get(appId) ?? new Set<string>();
      signedIn.set(appId, users);
      if (users.has(userId) === holds) return;
      if (holds) users.add(userId);
      else users.delete(userId);
      connections.noteApp(appId);
      const key = keys.nodeUsers(nodeId, appId);
      // Ordered so a reaper always finds, in the index, a user this node may hold online: the index entry is
      // written before the user is marked online and removed after the mark is gone.
      // One user's changes run one after the other, so a quick sign-out and sign-in end as they happened.
      const chainKey = `${appId}\u0000${userId}`;
      const previous = chains.get(chainKey) ?? Promise.resolve();
      const next = previous.then(async () => {
        if (holds) await context.send(key, 'SADD', key, userId);
        await mark(nodeId, appId, userId, holds);
        if (!holds) await context.send(key, 'SREM', key, userId);
      });
      const settled = next.catch((error: unknown) => context.fail('online', error));
      chains.set(chainKey, settled);
      void settled.then(() => {
        if (chains.get(chainKey) === settled) chains.delete(chainKey);
      });
    },

    async held(node, appId) {
      const key = keys.nodeUsers(node, appId);
      return toStrings(await context.send(key, 'SMEMBERS', key));
    },

    async online(appId, userIds) {
      const cards = await context.read('online', () =>
        Promise.all(
          userIds.map((userId) =>
            context.send(keys.online(appId, userId), 'SCARD', keys.online(appId, userId)),
          ),
        ),
      );
      return userIds.filter((_, index) => Number(cards[index]) > 0);
    },
  };
}
