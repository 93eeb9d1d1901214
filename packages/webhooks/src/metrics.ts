import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The outcome of one webhook request, as counted by `herald_webhook_requests_total`. */
export type RequestOutcome = 'sent' | 'retried' | 'failed' | 'dropped';

/** Why events were lost, as counted by `herald_webhook_dropped_events_total`. */
export type DropReason = 'queue_full' | 'gave_up' | 'unknown_app' | 'unknown_webhook' | 'closed';

export interface DispatcherMetrics {
  request(appId: string, outcome: RequestOutcome): void;
  dropped(appId: string, reason: DropReason, events: number): void;
  delivered(appId: string, seconds: number): void;
  stale(appId: string, events: number): void;
}

const noMetrics: DispatcherMetrics = { request() {}, dropped() {}, delivered() {}, stale() {} };

// Two dispatchers may share a registry (tests, several servers in one process): reuse what is registered.
function existing<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

/** Registers the dispatcher's metrics on a prom-client registry; without one, nothing is counted. */
export function createDispatcherMetrics(
  registry: Registry | undefined,
  depth: () => Promise<number>,
): DispatcherMetrics {
  if (!registry) return noMetrics;
  const requests = existing(
    registry,
    'herald_webhook_requests_total',
    () =>
      new Counter({
        name: 'herald_webhook_requests_total',
        help: 'Webhook requests by app and outcome (sent, retried, failed, dropped)',
        labelNames: ['app_id', 'outcome'],
        registers: [registry],
      }),
  );
  const dropped = existing(
    registry,
    'herald_webhook_dropped_events_total',
    () =>
      new Counter({
        name: 'herald_webhook_dropped_events_total',
        help: 'Webhook events never delivered, by app and reason (queue_full, gave_up, unknown_app, unknown_webhook, closed)',
        labelNames: ['app_id', 'reason'],
        registers: [registry],
      }),
  );
  const stale = existing(
    registry,
    'herald_webhook_stale_events_total',
    () =>
      new Counter({
        name: 'herald_webhook_stale_events_total',
        help: 'Webhook events left out of a request because they no longer held when it was sent (overtaken by a later change)',
        labelNames: ['app_id'],
        registers: [registry],
      }),
  );
  const latency = existing(
    registry,
    'herald_webhook_delivery_seconds',
    () =>
      new Histogram({
        name: 'herald_webhook_delivery_seconds',
        help: 'Time from a webhook request being queued to its 2xx answer',
        labelNames: ['app_id'],
        buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
        registers: [registry],
      }),
  );
  existing(
    registry,
    'herald_webhook_queue_depth',
    () =>
      new Gauge({
        name: 'herald_webhook_queue_depth',
        help: 'Webhook events waiting: batches being gathered here plus the queue',
        registers: [registry],
        async collect() {
          try {
            this.set(await depth());
          } catch {
            // A queue that cannot answer (Redis away) keeps the last value rather than failing the scrape.
          }
        },
      }),
  );
  return {
    request: (appId, outcome) => requests.inc({ app_id: appId, outcome }),
    dropped: (appId, reason, events) => dropped.inc({ app_id: appId, reason }, events),
    delivered: (appId, seconds) => latency.observe({ app_id: appId }, seconds),
    stale: (appId, events) => stale.inc({ app_id: appId }, events),
  };
}
