import type { ClusterListener, ClusterMessage } from '@herald/protocol-core';
import { ScalingRedisError } from '../errors.js';
import type { RedisLink } from '../internal/connection.js';
import type { Keys } from '../internal/keys.js';
import * as lua from '../internal/scripts.js';
import { runScript } from '../internal/scripts.js';
import type { Logger } from '../logger.js';

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

/** What every room of one node shares: who it is, how it reaches Redis, and how it reports trouble. */
export interface NodeContext {
  readonly nodeId: string;
  readonly keys: Keys;
  readonly link: RedisLink;
  readonly logger: Logger;
  readonly metrics: ScalingMetrics;
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

/** Builds the context of one node; the link's events call back into it once `bind` has given it the link. */
export function createNodeContext(settings: {
  readonly nodeId: string;
  readonly keys: Keys;
  readonly logger: Logger;
  readonly metrics: ScalingMetrics;
  readonly channelName: string;
  readonly heartbeatMs: number;
  readonly deadAfterMs: number;
  readonly link: (fail: NodeContext['fail']) => RedisLink;
}): NodeContext {
  const { nodeId, logger, metrics, deadAfterMs } = settings;
  const context: NodeContext = {
    nodeId,
    keys: settings.keys,
    logger,
    metrics,
    channelName: settings.channelName,
    heartbeatMs: settings.heartbeatMs,
    deadAfterMs,
    link: undefined as unknown as RedisLink, // Set right below: the link's error handler needs `fail`.
    listener: undefined,
    stale: true,
    outage: false,
    lapsedNodes: [],
    knownLive: 1,
    fail(operation, error) {
      context.stale = true;
      metrics.error?.(operation);
      const fields = { nodeId, operation, error: messageOf(error) };
      if (context.outage) {
        logger.debug('redis operation failed', fields);
      } else {
        context.outage = true;
        logger.warn('redis unavailable: local delivery goes on, cluster state will be rebuilt', fields);
      }
    },
    write(operation, run) {
      try {
        run().catch((error: unknown) => context.fail(operation, error));
      } catch (error) {
        context.fail(operation, error);
      }
    },
    async read(operation, run) {
      try {
        return await run();
      } catch (error) {
        context.fail(operation, error);
        throw new ScalingRedisError('unavailable', `Redis is unavailable (${operation})`, { cause: error });
      }
    },
    send: (key, ...args) => context.link.send(key, args),
    liveNodes: async () =>
      toStrings(
        await runScript(context.link, lua.nodesByState, [context.keys.nodes], [String(deadAfterMs), 'live']),
      ),
  };
  (context as { link: RedisLink }).link = settings.link(context.fail);
  return context;
}
