import type {
  ClusterAdapter,
  ClusterChannelChange,
  ClusterDelivery,
  ClusterListener,
  LocalClusterState,
} from '@herald/protocol-core';
import { createMemoryCluster } from '@herald/protocol-core/testing';
import { vi } from 'vitest';
import type { ClusterRouting, ClusterStats } from '../src/cluster/routing.js';
import type { Logger } from '../src/logger.js';
import {
  createRedisClusterNode,
  type RedisClusterNode,
  type RedisClusterOptions,
} from '../src/redis-cluster.js';

/** A listener that records what the adapter hands the server. */
export interface RecordingListener extends ClusterListener {
  readonly deliveries: ClusterDelivery[];
  readonly terminations: Array<{ appId: string; userId: string }>;
  /** Channel changes this node was the one told of (occupied, vacated, members removed by a reap). */
  readonly changes: ClusterChannelChange[];
  /** Users that came online or went offline, as told to this node. */
  readonly users: Array<{ appId: string; userId: string; online: boolean }>;
  restarts: number;
  state: LocalClusterState;
}

export function recordingListener(): RecordingListener {
  const recorder: RecordingListener = {
    deliveries: [],
    terminations: [],
    changes: [],
    users: [],
    restarts: 0,
    state: { connections: [], subscriptions: [], presence: [] },
    deliver: (delivery) => recorder.deliveries.push(delivery),
    terminate: (appId, userId) => recorder.terminations.push({ appId, userId }),
    restart: () => {
      recorder.restarts += 1;
    },
    localState: () => recorder.state,
    channelChanged: (change) => recorder.changes.push(change),
    userChanged: (appId, userId, online) => recorder.users.push({ appId, userId, online }),
  };
  return recorder;
}

/** A node under test. */
export interface StartedNode {
  readonly adapter: ClusterAdapter;
  readonly listener: RecordingListener;
  /** Resolves once the node listens on every topic it asked for (at once where there are none). */
  settled(): Promise<void>;
  /** What the node received from Redis, where the backend counts it. */
  stats?(): ClusterStats;
}

/** Nodes of one cluster under test, each started with its own recording listener. */
export interface TestCluster {
  /** Starts a node. */
  start(nodeId: string): Promise<StartedNode>;
  /** Drops a node as a crash would (no cleanup); survivors must reap it. */
  kill(nodeId: string): void;
  /** Stops every node still running. */
  close(): Promise<void>;
  /** Longest time survivors may take to notice a dead node. */
  readonly deadWindowMs: number;
  /** The broadcast channel (Redis backends). */
  readonly channel?: string;
}

/** The backends the conformance suite runs against. */
export interface Backend {
  readonly name: string;
  /** How the backend routes channel traffic; the memory double sends everything to every node. */
  readonly routing?: ClusterRouting;
  cluster(): TestCluster;
}

export const memoryBackend: Backend = {
  name: 'memory double',
  cluster() {
    const memory = createMemoryCluster();
    const running = new Map<string, ClusterAdapter>();
    return {
      deadWindowMs: 50,
      async start(nodeId) {
        const adapter = memory.node(nodeId);
        const listener = recordingListener();
        await adapter.start(listener);
        running.set(nodeId, adapter);
        return { adapter, listener, settled: async () => {} };
      },
      kill(nodeId) {
        running.delete(nodeId);
        memory.kill(nodeId);
      },
      async close() {
        await Promise.all([...running.values()].map((adapter) => adapter.stop()));
      },
    };
  },
};

export const HEARTBEAT_MS = 100;
export const DEAD_AFTER_MS = 400;
let clusters = 0;

/** A backend of Redis adapters, each cluster with its own key prefix and channel on the same Redis. */
export function redisBackend(
  name: string,
  server: () => RedisClusterOptions,
  routing: ClusterRouting = 'interest',
): Backend {
  return {
    name: `${name}, ${routing} routing`,
    routing,
    cluster() {
      clusters += 1;
      const tag = `t${process.pid}-${clusters}`;
      const running = new Map<string, ReturnType<typeof createRedisClusterNode>>();
      return {
        channel: `${tag}:broadcast`,
        deadWindowMs: DEAD_AFTER_MS + 3 * HEARTBEAT_MS,
        async start(nodeId) {
          const adapter = createRedisClusterNode({
            ...server(),
            nodeId,
            keyPrefix: `${tag}:`,
            channel: `${tag}:broadcast`,
            heartbeatMs: HEARTBEAT_MS,
            deadAfterMs: DEAD_AFTER_MS,
            timeout: 1,
            routing,
          });
          const listener = recordingListener();
          await adapter.start(listener);
          running.set(nodeId, adapter);
          return { adapter, listener, settled: () => adapter.settled(), stats: () => adapter.stats() };
        },
        kill(nodeId) {
          running.get(nodeId)?.crash();
          running.delete(nodeId);
        },
        async close() {
          await Promise.all([...running.values()].map((adapter) => adapter.stop()));
        },
      };
    },
  };
}

type LogMethod = Logger['info'];

/** A logger whose calls the test can inspect. */
export function spyLogger() {
  return {
    debug: vi.fn<LogMethod>(),
    info: vi.fn<LogMethod>(),
    warn: vi.fn<LogMethod>(),
    error: vi.fn<LogMethod>(),
  };
}

/**
 * Two started nodes (`a`, `b`) sharing a Redis, with a spy logger and the error/resync metrics recorded (`resynced`
 * with the id of the node that rewrote its share); `start` adds another node on the same settings.
 */
export async function startOutagePair(
  connection: Pick<RedisClusterOptions, 'url' | 'clusterMode' | 'rootNodes' | 'routing'> & {
    keyPrefix: string;
    channel: string;
  },
  started: RedisClusterNode[],
  timing: Pick<RedisClusterOptions, 'heartbeatMs' | 'deadAfterMs'> = {
    heartbeatMs: HEARTBEAT_MS,
    deadAfterMs: DEAD_AFTER_MS,
  },
) {
  const logger = spyLogger();
  const errors = vi.fn<(operation: string) => void>();
  const resynced = vi.fn<(nodeId: string) => void>();
  const start = async (nodeId: string, listener = recordingListener()) => {
    const node = createRedisClusterNode({
      ...connection,
      ...timing,
      nodeId,
      timeout: 1,
      logger,
      metrics: { error: errors, resynced: () => resynced(nodeId) },
    });
    started.push(node);
    await node.start(listener);
    return node;
  };
  const aListener = recordingListener();
  const bListener = recordingListener();
  const a = await start('a', aListener);
  const b = await start('b', bListener);
  return { a, b, aListener, bListener, logger, errors, resynced, start };
}
