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

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics !== false)
      collectDefaultMetrics({ register: this.registry, prefix: 'herald_' });
  }

  /** The Prometheus text exposition of every metric. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
