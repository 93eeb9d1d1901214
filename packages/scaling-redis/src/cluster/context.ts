import type { ClusterListener } from '@herald/protocol-core';
import { ScalingRedisError } from '../errors.js';
import type { RedisLink } from '../internal/connection.js';
import type { Keys } from '../internal/keys.js';
import * as lua from '../internal/scripts.js';
import { runScript } from '../internal/scripts.js';
import type { Logger } from '../logger.js';
import type { NodeMetrics } from './metrics.js';

/** What every room of one node shares: who it is, how it reaches Redis, and how it reports trouble. */
export interface NodeContext {
  readonly nodeId: string;
  readonly keys: Keys;
  readonly link: RedisLink;
  readonly logger: Logger;
  readonly metrics: NodeMetrics;
  /** The control channel: restarts, users online/offline, and everything when routing to all nodes. */
  readonly channelName: string;
  readonly heartbeatMs: number;
  readonly deadAfterMs: number;
  /** The server this node serves, between `start` and `stop`. */
  listener: ClusterListener | undefined;
  /** Set when a write may have been lost or the node may have been reaped: the next heartbeat rewrites its share. */
  stale: boolean;
  /** Between the first failure and the heartbeat that finds every connection back; the warning is logged once. */
  outage: boolean;
  /** Nodes whose heartbeat lapsed at the last look: their connections do not count against a limit. */
  lapsedNodes: string[];
  /** Live nodes at the last heartbeat: after Redis restarts empty, the others show up only as they heartbeat again. */
  knownLive: number;
  /** Counts a failed operation and marks the share for rewriting; logs the outage once. */
  fail(operation: string, error: unknown): void;
  /** Fires a write that must never throw into the server; a failure marks the share for rewriting. */
  write(operation: string, run: () => Promise<unknown>): void;
  /** Runs a read; a failure rejects with `ScalingRedisError` `unavailable`. */
  read<T>(operation: string, run: () => Promise<T>): Promise<T>;
  /** A raw command routed by `key`. */
  send(key: string, ...args: string[]): Promise<unknown>;
  /** The nodes whose heartbeat has not lapsed. */
  liveNodes(): Promise<string[]>;
}

export const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export const toStrings = (reply: unknown): string[] =>
  Array.isArray(reply) ? reply.map((value) => String(value)) : [];

/** `[a, 1, b, 2]` → `[[a, 1], [b, 2]]`, as HGETALL answers in RESP2. */
export function pairs(flat: readonly string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i] ?? '', flat[i + 1] ?? '']);
  return out;
}

/** A node's standing with Redis, which the rooms update, and how a failure is reported. */
type NodeStatus = Pick<NodeContext, 'listener' | 'stale' | 'outage' | 'lapsedNodes' | 'knownLive' | 'fail'>;

function createNodeStatus(nodeId: string, logger: Logger, metrics: NodeMetrics): NodeStatus {
  const status: NodeStatus = {
    listener: undefined,
    stale: true,
    outage: false,
    lapsedNodes: [],
    knownLive: 1,
    fail(operation, error) {
      status.stale = true;
      metrics.error(operation);
      const fields = { nodeId, operation, error: messageOf(error) };
      if (status.outage) {
        logger.debug('redis operation failed', fields);
      } else {
        status.outage = true;
        logger.warn('redis unavailable: local delivery goes on, cluster state will be rebuilt', fields);
      }
    },
  };
  return status;
}

/**
 * Builds the context of one node: its status first, then the link (whose errors are reported through the status),
 * then the rest around them.
 */
export function createNodeContext(settings: {
  readonly nodeId: string;
  readonly keys: Keys;
  readonly logger: Logger;
  readonly metrics: NodeMetrics;
  readonly channelName: string;
  readonly heartbeatMs: number;
  readonly deadAfterMs: number;
  readonly link: (fail: NodeContext['fail']) => RedisLink;
}): NodeContext {
  const { nodeId, keys, logger, metrics, deadAfterMs } = settings;
  const status = createNodeStatus(nodeId, logger, metrics);
  const { fail } = status;
  const link = settings.link(fail);
  // The status object itself becomes the context, so the rooms and `fail` see the same flags.
  return Object.assign(status, {
    nodeId,
    keys,
    link,
    logger,
    metrics,
    channelName: settings.channelName,
    heartbeatMs: settings.heartbeatMs,
    deadAfterMs,
    write(operation: string, run: () => Promise<unknown>) {
      try {
        run().catch((error: unknown) => fail(operation, error));
      } catch (error) {
        fail(operation, error);
      }
    },
    async read<T>(operation: string, run: () => Promise<T>): Promise<T> {
      try {
        return await run();
      } catch (error) {
        fail(operation, error);
        throw new ScalingRedisError('unavailable', `Redis is unavailable (${operation})`, { cause: error });
      }
    },
    send: (key: string, ...args: string[]) => link.send(key, args),
    liveNodes: async () =>
      toStrings(await runScript(link, lua.nodesByState, [keys.nodes], [String(deadAfterMs), 'live'])),
  });
}
