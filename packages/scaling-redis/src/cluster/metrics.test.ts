import { Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { isScalingRedisError } from '../errors.js';
import { createNodeMetrics, registerTrafficMetrics } from './metrics.js';
import type { ClusterStats } from './traffic.js';

const stats = (counts: Partial<ClusterStats> = {}): ClusterStats => ({
  routing: 'interest',
  messagesReceived: 0,
  bytesReceived: 0,
  topics: 0,
  subscribes: 0,
  unsubscribes: 0,
  subscribeCommands: 0,
  unsubscribeCommands: 0,
  ...counts,
});

describe('createNodeMetrics', () => {
  it('counts on the registry and calls the hooks', async () => {
    const registry = new Registry();
    const error = vi.fn();
    const metrics = createNodeMetrics(registry, { error });
    metrics.messageSent('deliver');
    metrics.messageReceived('deliver');
    metrics.error('publish');
    metrics.nodeReaped('n2');
    metrics.resynced();
    const text = await registry.metrics();
    expect(text).toContain('herald_cluster_messages_total{direction="out",type="deliver"} 1');
    expect(text).toContain('herald_cluster_messages_total{direction="in",type="deliver"} 1');
    expect(text).toContain('herald_cluster_errors_total{operation="publish"} 1');
    expect(text).toContain('herald_cluster_events_total{event="node_reaped"} 1');
    expect(text).toContain('herald_cluster_events_total{event="resynced"} 1');
    expect(error).toHaveBeenCalledWith('publish');
  });

  it('only calls the hooks without a registry', () => {
    const resynced = vi.fn();
    createNodeMetrics(undefined, { resynced }).resynced();
    expect(resynced).toHaveBeenCalledOnce();
  });

  it('refuses a registry that already holds the cluster metrics', () => {
    const registry = new Registry();
    createNodeMetrics(registry, {});
    let refused: unknown;
    try {
      createNodeMetrics(registry, {});
    } catch (error) {
      refused = error;
    }
    expect(isScalingRedisError(refused) && refused.code).toBe('invalid_options');
  });
});

describe('registerTrafficMetrics', () => {
  it('reads the stats at every scrape, with the help and types of the Prometheus text', async () => {
    const registry = new Registry();
    let now = stats({ messagesReceived: 3, bytesReceived: 120, topics: 2, subscribes: 2 });
    registerTrafficMetrics(registry, () => now);
    expect(await registry.metrics()).toContain(
      '# HELP herald_cluster_messages_received_total Messages received from Redis (every channel and topic this node listens on).\n' +
        '# TYPE herald_cluster_messages_received_total counter\nherald_cluster_messages_received_total 3',
    );
    now = stats({ messagesReceived: 5, bytesReceived: 200, topics: 1, subscribes: 2, unsubscribes: 1 });
    const text = await registry.metrics();
    expect(text).toContain('herald_cluster_messages_received_total 5\n');
    expect(text).toContain('herald_cluster_bytes_received_total 200\n');
    expect(text).toContain('# TYPE herald_cluster_topics gauge\nherald_cluster_topics 1\n');
    expect(text).toContain('herald_cluster_topic_subscribes_total 2\n');
    expect(text).toContain('herald_cluster_topic_unsubscribes_total 1\n');
  });
});
