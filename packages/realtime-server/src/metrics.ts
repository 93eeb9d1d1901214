import type { Awaitable, RecoveryFailureReason } from '@herald/protocol-core';
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { HistorySize } from './history/types.js';

/**
 * A per-app count kept as a plain number: the socket and frame paths add to it with no label hashing and no
 * garbage, and the Prometheus metric reads it when it is scraped.
 */
export class AppCount {
  value = 0;
  /** What a counter has gained since the last scrape. */
  unreported = 0;

  inc(by = 1): void {
    this.value += by;
    this.unreported += by;
  }

  dec(by = 1): void {
    this.value -= by;
  }
}

/** The socket-side counts of one app, each read into its `app_id`-labelled metric at scrape time. */
export interface AppCounts {
  readonly connections: AppCount;
  readonly newConnections: AppCount;
  readonly disconnections: AppCount;
  readonly received: AppCount;
  readonly sent: AppCount;
  readonly bytesIn: AppCount;
  readonly bytesOut: AppCount;
  readonly subscriptions: AppCount;
  /** Resubscriptions that were sent the events they missed (history on). */
  readonly replays: AppCount;
  /** Events sent in those replays. */
  readonly replayedEvents: AppCount;
  /** `herald:recovery_failed` sent, by reason. */
  readonly recoveryFailures: Readonly<Record<RecoveryFailureReason, AppCount>>;
}

/** Where the history gauges read from: the apps with history on, and what the history holds for one. */
export interface HistorySizeSource {
  apps(): Iterable<string>;
  size(appId: string): Awaitable<HistorySize | undefined>;
}

const FAILURE_REASONS: readonly RecoveryFailureReason[] = ['disabled', 'trimmed', 'expired', 'restarted'];

/** The HTTP-side counts of one app (or of requests naming no served app, under the id ''). */
export interface HttpCounts {
  readonly calls: AppCount;
  readonly bytesIn: AppCount;
  readonly bytesOut: AppCount;
}

type CountName = { [K in keyof AppCounts]: AppCounts[K] extends AppCount ? K : never }[keyof AppCounts];

/** A counter's `collect`: adds what each app's count gained since the last scrape (a counter only goes up). */
function reportCounter<T extends Record<K, AppCount>, K extends keyof T>(
  counts: ReadonlyMap<string, T>,
  name: K,
  /** Leave out apps that never counted (history counters: most apps keep no history). */
  onlyUsed = false,
) {
  return function collect(this: Counter<'app_id'>): void {
    for (const [appId, app] of counts) {
      const count = app[name];
      if (onlyUsed && count.value === 0) continue;
      this.inc({ app_id: appId }, count.unreported);
      count.unreported = 0;
    }
  };
}

/** The recovery failures counter's `collect`: per app and reason, only those that happened. */
function reportFailures(counts: ReadonlyMap<string, AppCounts>) {
  return function collect(this: Counter<'app_id' | 'reason'>): void {
    for (const [appId, app] of counts) {
      for (const reason of FAILURE_REASONS) {
        const count = app.recoveryFailures[reason];
        if (count.value === 0) continue;
        this.inc({ app_id: appId, reason }, count.unreported);
        count.unreported = 0;
      }
    }
  };
}

/** A history size gauge's `collect`: asks the history, at scrape time only, what each app with history holds. */
function reportHistorySize(source: () => HistorySizeSource | undefined, field: keyof HistorySize) {
  return async function collect(this: Gauge<'app_id'>): Promise<void> {
    this.reset();
    const from = source();
    if (!from) return;
    for (const appId of from.apps()) {
      const size = await from.size(appId);
      if (size) this.set({ app_id: appId }, size[field]);
    }
  };
}

/** A gauge's `collect`: sets each app's value. */
function reportGauge(counts: ReadonlyMap<string, AppCounts>, name: CountName) {
  return function collect(this: Gauge<'app_id'>): void {
    for (const [appId, app] of counts) this.set({ app_id: appId }, app[name].value);
  };
}

/** Prometheus metrics of one server, in a registry of its own so several servers never share counters. */
export class ServerMetrics {
  readonly #apps = new Map<string, AppCounts>();
  readonly #http = new Map<string, HttpCounts>();
  readonly registry = new Registry();
  readonly connections = new Gauge({
    name: 'herald_connected',
    help: 'Sockets currently connected',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
    collect: reportGauge(this.#apps, 'connections'),
  });
  readonly newConnections = new Counter({
    name: 'herald_new_connections_total',
    help: 'Sockets opened',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
    collect: reportCounter(this.#apps, 'newConnections'),
  });
  readonly disconnections = new Counter({
    name: 'herald_new_disconnections_total',
    help: 'Sockets closed',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
    collect: reportCounter(this.#apps, 'disconnections'),
  });
  readonly messagesReceived = new Counter({
    name: 'herald_ws_messages_received_total',
    help: 'WebSocket frames received',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
    collect: reportCounter(this.#apps, 'received'),
  });
  readonly messagesSent = new Counter({
    name: 'herald_ws_messages_sent_total',
    help: 'WebSocket frames sent (a broadcast counts once per recipient)',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
    collect: reportCounter(this.#apps, 'sent'),
  });
  readonly bytesReceived = new Counter({
    name: 'herald_socket_received_bytes',
    help: 'WebSocket payload bytes received',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
    collect: reportCounter(this.#apps, 'bytesIn'),
  });
  readonly bytesSent = new Counter({
    name: 'herald_socket_transmitted_bytes',
    help: 'WebSocket payload bytes sent',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
    collect: reportCounter(this.#apps, 'bytesOut'),
  });
  readonly httpCalls = new Counter({
    name: 'herald_http_calls_received_total',
    help: 'HTTP requests received',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
    collect: reportCounter(this.#http, 'calls'),
  });
  readonly httpBytesReceived = new Counter({
    name: 'herald_http_received_bytes',
    help: 'HTTP request body bytes received',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
    collect: reportCounter(this.#http, 'bytesIn'),
  });
  readonly httpBytesSent = new Counter({
    name: 'herald_http_transmitted_bytes',
    help: 'HTTP response body bytes sent',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
    collect: reportCounter(this.#http, 'bytesOut'),
  });
  readonly subscriptions = new Gauge({
    name: 'herald_subscriptions',
    help: 'Channel subscriptions currently held by sockets',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
    collect: reportGauge(this.#apps, 'subscriptions'),
  });
  readonly replays = new Counter({
    name: 'herald_history_replays_total',
    help: 'Resubscriptions sent the events they missed from channel history',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
    collect: reportCounter(this.#apps, 'replays', true),
  });
  readonly replayedEvents = new Counter({
    name: 'herald_history_replayed_events_total',
    help: 'Events sent from channel history in replays',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
    collect: reportCounter(this.#apps, 'replayedEvents', true),
  });
  readonly recoveryFailures = new Counter({
    name: 'herald_recovery_failures_total',
    help: 'herald:recovery_failed sent, by reason (disabled, trimmed, expired, restarted)',
    labelNames: ['app_id', 'reason'] as const,
    registers: [this.registry],
    collect: reportFailures(this.#apps),
  });
  #historySource: HistorySizeSource | undefined;
  readonly historyEvents = new Gauge({
    name: 'herald_history_events',
    help: 'Events held in channel history, per app with history on',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
    collect: reportHistorySize(() => this.#historySource, 'events'),
  });
  readonly historyBytes = new Gauge({
    name: 'herald_history_bytes',
    help: 'Bytes of frames held in channel history, per app with history on (in memory: UTF-16 size; in Redis: UTF-8, measured every few seconds)',
    labelNames: ['app_id'] as const,
    registers: [this.registry],
    collect: reportHistorySize(() => this.#historySource, 'bytes'),
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

  // Abuse protection (per-address limits at the upgrade, slow consumers, authorised connections): counted without
  // app labels, since a refused upgrade has no app yet.
  readonly upgradesRefused = new Counter({
    name: 'herald_upgrades_refused_total',
    help: 'WebSocket upgrades answered 429 by a per-address limit, by reason (connections_per_ip, upgrades_per_ip)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  readonly slowConsumersClosed = new Counter({
    name: 'herald_slow_consumers_closed_total',
    help: 'Sockets closed with 4100 because their unsent bytes passed max_buffered_bytes_per_socket',
    registers: [this.registry],
  });
  readonly unauthorizedClosed = new Counter({
    name: 'herald_unauthorized_connections_closed_total',
    help: 'Sockets closed with 4009 for neither signing in nor subscribing to a private channel in time',
    registers: [this.registry],
  });

  constructor(options: { processMetrics?: boolean } = {}) {
    this.appStoreUp.set(1);
    // Both reasons show from the first scrape, so a dashboard's rate() has a series before the first refusal.
    this.upgradesRefused.inc({ reason: 'connections_per_ip' }, 0);
    this.upgradesRefused.inc({ reason: 'upgrades_per_ip' }, 0);
    if (options.processMetrics !== false)
      collectDefaultMetrics({ register: this.registry, prefix: 'herald_' });
  }

  /**
   * The socket-side counts of an app, labelled with its id; the same object for the same id, so an app replaced
   * or re-added keeps counting where it was (as a labelled Prometheus child would).
   */
  forApp(appId: string): AppCounts {
    let counts = this.#apps.get(appId);
    if (!counts) {
      counts = {
        connections: new AppCount(),
        newConnections: new AppCount(),
        disconnections: new AppCount(),
        received: new AppCount(),
        sent: new AppCount(),
        bytesIn: new AppCount(),
        bytesOut: new AppCount(),
        subscriptions: new AppCount(),
        replays: new AppCount(),
        replayedEvents: new AppCount(),
        recoveryFailures: {
          disabled: new AppCount(),
          trimmed: new AppCount(),
          expired: new AppCount(),
          restarted: new AppCount(),
        },
      };
      this.#apps.set(appId, counts);
    }
    return counts;
  }

  /**
   * The HTTP-side counts of an app id, counted as plain numbers like {@link forApp}. Only ids the server serves get
   * a series of their own: pass '' for a request that names no served app, so made-up ids in paths cannot grow the
   * label set.
   */
  forHttp(appId: string): HttpCounts {
    let counts = this.#http.get(appId);
    if (!counts) {
      counts = { calls: new AppCount(), bytesIn: new AppCount(), bytesOut: new AppCount() };
      this.#http.set(appId, counts);
    }
    return counts;
  }

  /**
   * Reads the history size gauges from `source` at scrape time (the server passes its apps with history on and its
   * history's `size`, when the history can tell). Nothing is measured between scrapes.
   */
  watchHistorySize(source: HistorySizeSource): void {
    this.#historySource = source;
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
