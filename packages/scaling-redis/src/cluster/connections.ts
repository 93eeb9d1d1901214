import * as lua from '../internal/scripts.js';
import { runScript } from '../internal/scripts.js';
import { type NodeContext, pairs, toStrings } from './context.js';

/** Open connections per app: admitted against a cluster-wide limit, counted per node in Redis. */
export interface Connections {
  /** What this node asked Redis to hold, kept so its share can be rewritten after an outage. */
  readonly counts: Map<string, number>;
  /** Apps this node has indexed under its own key (so a reaper finds what it wrote). */
  readonly knownApps: Set<string>;
  /** Indexes an app before anything is counted for it. */
  noteApp(appId: string): void;
  admit(appId: string, maxConnections: number): Promise<boolean>;
  release(appId: string): void;
  /** Open connections of an app on the live nodes. */
  count(appId: string): Promise<number>;
}

export function createConnections(context: NodeContext): Connections {
  const { nodeId, keys, link } = context;
  const counts = new Map<string, number>();
  const knownApps = new Set<string>();

  function noteApp(appId: string): void {
    if (knownApps.has(appId)) return;
    knownApps.add(appId);
    // Before the count it indexes, so that a reaper always finds what this node wrote.
    context.write('index', () => context.send(keys.nodeApps(nodeId), 'SADD', keys.nodeApps(nodeId), appId));
  }

  return {
    counts,
    knownApps,
    noteApp,

    async admit(appId, maxConnections) {
      noteApp(appId);
      const key = keys.connections(appId);
      try {
        const reply = await runScript(
          link,
          lua.admitConnection,
          [key],
          [nodeId, String(maxConnections), ...context.lapsedNodes],
        );
        if (reply !== 1) return false;
      } catch (error) {
        // Failing open: an outage must not lock every user out. The count is rewritten once Redis is back.
        context.fail('admit', error);
        if ((counts.get(appId) ?? 0) >= maxConnections) return false;
      }
      counts.set(appId, (counts.get(appId) ?? 0) + 1);
      return true;
    },

    release(appId) {
      counts.set(appId, Math.max(0, (counts.get(appId) ?? 0) - 1));
      context.write('release', () =>
        runScript(link, lua.releaseConnection, [keys.connections(appId)], [nodeId]),
      );
    },

    count(appId) {
      return context.read('connections', async () => {
        const key = keys.connections(appId);
        const [nodes, flat] = await Promise.all([
          context.liveNodes(),
          context.send(key, 'HGETALL', key).then(toStrings),
        ]);
        const live = new Set(nodes);
        return pairs(flat).reduce((sum, [node, count]) => (live.has(node) ? sum + Number(count) : sum), 0);
      });
    },
  };
}
