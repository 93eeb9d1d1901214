import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';

/** Prometheus metrics of one server, in a registry of its own so several servers never share counters. */
export class ServerMetrics {
  readonly registry = new Registry();
  readonly connections = new Gauge({
    name: 'herald_connected',
    help: 'Sockets currently connected',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
  });
  readonly newConnections = new Counter({
    name: 'herald_new_connections_total',
    help: 'Sockets opened',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
  });
  readonly disconnections = new Counter({
    name: 'herald_new_disconnections_total',
    help: 'Sockets closed',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
  });
  readonly messagesReceived = new Counter({
    name: 'herald_ws_messages_received_total',
    help: 'WebSocket frames received',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
  });
  readonly messagesSent = new Counter({
    name: 'herald_ws_messages_sent_total',
    help: 'WebSocket frames sent (a broadcast counts once per recipient)',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
  });
  readonly bytesReceived = new Counter({
    name: 'herald_socket_received_bytes',
    help: 'WebSocket payload bytes received',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
  });
  readonly bytesSent = new Counter({
    name: 'herald_socket_transmitted_bytes',
    help: 'WebSocket payload bytes sent',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
  });
  readonly httpCalls = new Counter({
    name: 'herald_http_calls_received_total',
    help: 'HTTP requests received',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
  });
  readonly httpBytesReceived = new Counter({
    name: 'herald_http_received_bytes',
    help: 'HTTP request body bytes received',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
  });
  readonly httpBytesSent = new Counter({
    name: 'herald_http_transmitted_bytes',
    help: 'HTTP response body bytes sent',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
  });
  readonly subscriptions = new Gauge({
    name: 'herald_subscriptions',
    help: 'Channel subscriptions currently held by sockets',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
  });

  readonly clusterMessages = new Counter({
    name: 'herald_cluster_messages_total',
    help: 'Messages exchanged with the other nodes of the cluster',
    labelNames: ['direction', 'type'] as const,
    registers: [this.registry],
  });
  readonly clusterErrors = new Counter({
    name: 'herald_cluster_errors_total',
    help: 'Failed operations of the cluster adapter (Redis unreachable, unreadable message, …)',
    labelNames: ['operation'] as const,
    registers: [this.registry],
  });
  readonly clusterEvents = new Counter({
    name: 'herald_cluster_events_total',
    help: 'Cluster housekeeping: dead nodes reaped by this node, and resyncs of this node share',
    labelNames: ['event'] as const,
    registers: [this.registry],
  });

  readonly appStoreUp = new Gauge({
    name: 'herald_app_store_up',
    help: 'Whether the app store (e.g. PostgreSQL) is reachable: 1 or 0; apps are served from memory while 0',
    registers: [this.registry],
  });
  readonly appStoreOutages = new Counter({
    name: 'herald_app_store_outages_total',
    help: 'Times the app store became unreachable',
    registers: [this.registry],
  });
  readonly appStoreSkippedRows = new Gauge({
    name: 'herald_app_store_skipped_rows',
    help: 'Apps left out at the last read of the app store because a value is malformed',
    registers: [this.registry],
  });

  constructor(options: { processMetrics?: boolean } = {}) {
    this.appStoreUp.set(1);
    if (options.processMetrics !== false)
      collectDefaultMetrics({ register: this.registry, prefix: 'herald_' });
  }

  /** Hooks a scaling adapter calls, counted into the cluster metrics above. */
  clusterHooks(): {
    messageSent(type: string): void;
    messageReceived(type: string): void;
    error(operation: string): void;
    nodeReaped(nodeId: string): void;
    resynced(): void;
  } {
    return {
      messageSent: (type) => this.clusterMessages.inc({ direction: 'out', type }),
      messageReceived: (type) => this.clusterMessages.inc({ direction: 'in', type }),
      error: (operation) => this.clusterErrors.inc({ operation }),
      nodeReaped: () => this.clusterEvents.inc({ event: 'node_reaped' }),
      resynced: () => this.clusterEvents.inc({ event: 'resynced' }),
    };
  }

  /** Hooks an app store calls, counted into the app-store metrics above. */
  appStoreHooks(): { outage(): void; restored(): void; skippedRows(count: number): void } {
    return {
      outage: () => {
        this.appStoreUp.set(0);
        this.appStoreOutages.inc();
      },
      restored: () => this.appStoreUp.set(1),
      skippedRows: (count) => this.appStoreSkippedRows.set(count),
    };
  }

  /** The Prometheus text exposition of every metric. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
