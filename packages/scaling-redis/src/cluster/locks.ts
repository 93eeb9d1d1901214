import { randomBytes } from 'node:crypto';
import * as lua from '../internal/scripts.js';
import { runScript } from '../internal/scripts.js';
import type { NodeContext } from './context.js';

/** Who works on a node's share right now: a survivor reaping it, or the node itself rewriting it. */
export interface NodeLocks {
  /** Takes the lock of `target`'s share; undefined when someone else holds it. */
  lock(target: string): Promise<string | undefined>;
  unlock(target: string, token: string): Promise<void>;
}

export function createNodeLocks(context: NodeContext): NodeLocks {
  const lockMs = Math.max(context.deadAfterMs * 5, 10_000);
  return {
    async lock(target) {
      const token = `${context.nodeId}:${randomBytes(6).toString('hex')}`;
      const key = context.keys.nodeLock(target);
      const reply = await context.send(key, 'SET', key, token, 'NX', 'PX', String(lockMs));
      return reply === 'OK' ? token : undefined;
    },
    async unlock(target, token) {
      await runScript(context.link, lua.unlock, [context.keys.nodeLock(target)], [token]);
    },
  };
}

/** Removes a node's counts and index keys (its presence sockets are handled by the caller). */
export async function dropCounts(
  context: NodeContext,
  target: string,
  apps: readonly string[],
): Promise<void> {
  const { keys, send } = context;
  await Promise.all(
    apps.flatMap((appId) => [
      send(keys.connections(appId), 'HDEL', keys.connections(appId), target),
      send(keys.nodeSubscriptions(target, appId), 'DEL', keys.nodeSubscriptions(target, appId)),
      send(keys.nodeUsers(target, appId), 'DEL', keys.nodeUsers(target, appId)),
    ]),
  );
  await send(keys.nodePresence(target), 'DEL', keys.nodePresence(target), keys.nodeApps(target));
}
