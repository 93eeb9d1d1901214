import type { ClusterCachedEvent } from '@herald/protocol-core';
import * as lua from '../internal/scripts.js';
import { runScript } from '../internal/scripts.js';
import type { NodeContext } from './context.js';

/** The last event of a cache channel, kept in Redis with an expiry so every node can replay it. */
export interface CachedEvents {
  store(appId: string, channel: string, event: Omit<ClusterCachedEvent, 'ttlMs'>, ttlMs: number): void;
  read(appId: string, channel: string): Promise<ClusterCachedEvent | undefined>;
}

export function createCachedEvents(context: NodeContext): CachedEvents {
  const { keys, link } = context;
  return {
    store(appId, channel, event, ttlMs) {
      context.write('cache', () =>
        runScript(
          link,
          lua.storeCachedEvent,
          [keys.cache(appId, channel)],
          [event.event, event.data, event.frame, String(Math.max(1, Math.round(ttlMs)))],
        ),
      );
    },

    async read(appId, channel) {
      const reply = await context.read('cache', () =>
        runScript(link, lua.readCachedEvent, [keys.cache(appId, channel)], []),
      );
      const [event, data, frame, ttl] = Array.isArray(reply) ? reply : [];
      if (event === undefined) return undefined;
      return { event: String(event), data: String(data), frame: String(frame), ttlMs: Number(ttl) };
    },
  };
}
