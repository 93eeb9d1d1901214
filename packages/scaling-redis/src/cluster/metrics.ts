import type { ClusterMessage } from '@herald/protocol-core';
import { Counter, Gauge, type Registry } from 'prom-client';
import { ScalingRedisError } from '../errors.js';
import type { ClusterStats } from './traffic.js';

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

/** What the rooms of a node count: each call goes to the registry's metrics and to the caller's hooks. */
export type NodeMetrics = Required<ScalingMetrics>;

/** Refuses a registry that already holds the metric: two adapters on one registry would mix their counts. */
function unregistered(registry: Registry, name: string): string {
  if (registry.getSingleMetric(name)) {
    throw new ScalingRedisError(
      'invalid_options',
      `the registry already has ${name}: give each cluster adapter a registry of its own`,
    );
  }
  return name;
}

/**
 * Registers the counters of what a node does (`herald_cluster_messages_total`, `herald_cluster_errors_total`,
 * `herald_cluster_events_total`) on the registry, when one is given, and calls the hooks as well.
 * @throws {ScalingRedisError} `invalid_options` when the registry already holds one of them.
 */
export function createNodeMetrics(registry: Registry | undefined, hooks: ScalingMetrics): NodeMetrics {
  // Without a registry a count costs nothing more than the hook it calls.
  if (!registry) {
    return {
      messageSent: (type) => hooks.messageSent?.(type),
      messageReceived: (type) => hooks.messageReceived?.(type),
      error: (operation) => hooks.error?.(operation),
      nodeReaped: (nodeId) => hooks.nodeReaped?.(nodeId),
      resynced: () => hooks.resynced?.(),
    };
  }
  const messages = new Counter({
    name: unregistered(registry, 'herald_cluster_messages_total'),
    help: 'Messages exchanged with the other nodes of the cluster',
    labelNames: ['direction', 'type'] as const,
    registers: [registry],
  });
  const errors = new Counter({
    name: unregistered(registry, 'herald_cluster_errors_total'),
    help: 'Failed operations of the cluster adapter (Redis unreachable, unreadable message, …)',
    labelNames: ['operation'] as const,
    registers: [registry],
  });
  const events = new Counter({
    name: unregistered(registry, 'herald_cluster_events_total'),
    help: 'Cluster housekeeping: dead nodes reaped by this node, and resyncs of this node share',
    labelNames: ['event'] as const,
    registers: [registry],
  });
  return {
    messageSent(type) {
      messages.inc({ direction: 'out', type });
      hooks.messageSent?.(type);
    },
    messageReceived(type) {
      messages.inc({ direction: 'in', type });
      hooks.messageReceived?.(type);
    },
    error(operation) {
      errors.inc({ operation });
      hooks.error?.(operation);
    },
    nodeReaped(nodeId) {
      events.inc({ event: 'node_reaped' });
      hooks.nodeReaped?.(nodeId);
    },
    resynced() {
      events.inc({ event: 'resynced' });
      hooks.resynced?.();
    },
  };
}

type TrafficCount = 'messagesReceived' | 'bytesReceived' | 'subscribes' | 'unsubscribes';

/**
 * Registers what a node received from Redis and its topic churn, read from its stats when the registry is scraped
 * (the receive path counts plain numbers). Nothing without a registry.
 * @throws {ScalingRedisError} `invalid_options` when the registry already holds one of them.
 */
export function registerTrafficMetrics(registry: Registry | undefined, stats: () => ClusterStats): void {
  if (!registry) return;
  const counter = (name: string, help: string, count: TrafficCount) => {
    let reported = 0;
    new Counter({
      name: unregistered(registry, name),
      help,
      registers: [registry],
      collect() {
        // A counter only goes up: add what the count gained since the last scrape.
        const now = stats()[count];
        this.inc(now - reported);
        reported = now;
      },
    });
  };
  counter(
    'herald_cluster_messages_received_total',
    'Messages received from Redis (every channel and topic this node listens on).',
    'messagesReceived',
  );
  counter('herald_cluster_bytes_received_total', 'Bytes received from Redis.', 'bytesReceived');
  new Gauge({
    name: unregistered(registry, 'herald_cluster_topics'),
    help: 'Channel and user topics this node subscribes (interest routing).',
    registers: [registry],
    collect() {
      this.set(stats().topics);
    },
  });
  counter('herald_cluster_topic_subscribes_total', 'Topics subscribed.', 'subscribes');
  counter('herald_cluster_topic_unsubscribes_total', 'Topics dropped.', 'unsubscribes');
}
