import type { DebugEvent, Logger, RealtimeServer } from '@herald/realtime-server';
import {
  batchingFromConfig,
  createWebhookDispatcher,
  dispatcherSettingsFromConfig,
  subjectOf,
  type WebhookApp,
  type WebhookAttemptReport,
  type WebhookDispatcher,
  type WebhookEvent,
  type WebhookEventCheck,
  type WebhookQueue,
  webhookEvent,
} from '@herald/webhooks';
import type { ServedApp } from './app-source.js';
import type { RealtimeConfig } from './config-schema.js';

/** The apps the dispatcher serves, swapped whole on a reload or a store change (one object per app). */
export function webhookApps(served: readonly ServedApp[]): Map<string, WebhookApp> {
  const apps = new Map<string, WebhookApp>();
  for (const app of served) {
    if (app.webhooks.length === 0) continue;
    apps.set(app.id, {
      key: app.key,
      secret: app.secret,
      webhooks: app.webhooks,
      ...(app.webhook_batching ? { batching: batchingFromConfig(app.webhook_batching) } : {}),
    });
  }
  return apps;
}

/**
 * Checks occupancy and presence events against the server's state as a batch enters the webhook queue
 * (cluster-wide when clustered, this node's alone): a `channel_vacated` of a channel occupied again, a
 * `channel_occupied` of a channel empty again, a member event the roster no longer bears out, or a
 * `subscription_count` other than the channel's count now was overtaken. Each node gathers its own batches, so a
 * change decided on one node can reach the shared queue after the opposite change decided on another moments
 * later; leaving the overtaken one out keeps a receiver from ending on a state the cluster has left. (A count is
 * only overtaken by a change, and the node that made the change reports the count after it.) Other events always
 * hold.
 */
export function createEventCheck(
  server: Pick<RealtimeServer, 'channel' | 'presenceUsers'>,
): WebhookEventCheck {
  // The events of one request are checked together: lookups of the same channel share one round trip.
  const pending = new Map<string, Promise<unknown>>();
  const shared = <T>(key: string, read: () => Promise<T>): Promise<T> => {
    let found = pending.get(key) as Promise<T> | undefined;
    if (!found) {
      const started = read().finally(() => pending.delete(key));
      pending.set(key, started);
      found = started;
    }
    return found;
  };
  const details = (appId: string, channel: string) =>
    shared(`c\u0000${appId}\u0000${channel}`, () => server.channel(appId, channel));
  const members = (appId: string, channel: string) =>
    shared(`p\u0000${appId}\u0000${channel}`, () => server.presenceUsers(appId, channel));
  return (appId: string, event: WebhookEvent) => {
    // The package lists the kinds of events that can go stale; this only reads each subject's state now.
    const subject = subjectOf(event);
    switch (subject?.kind) {
      case 'occupancy':
        return details(appId, subject.channel).then((now) => now.occupied === subject.occupied);
      case 'membership':
        return members(appId, subject.channel).then(
          (users) => users.includes(subject.userId) === subject.member,
        );
      case 'subscription_count':
        return details(appId, subject.channel).then((now) => now.subscriptionCount === subject.count);
      default:
        return true;
    }
  };
}

/** A webhook attempt as the live debug log shows it. */
function debugEventOf(report: WebhookAttemptReport): DebugEvent {
  const { job } = report;
  const common = {
    url: safeUrlOf(job.url),
    attempt: job.attempts + 1,
    latencyMs: report.latencyMs,
    events: job.events,
  };
  return report.outcome === 'delivered'
    ? { kind: 'webhook_sent', status: report.status ?? 0, ...common }
    : {
        kind: 'webhook_failed',
        status: report.status,
        error: report.error,
        gaveUp: report.outcome === 'gave_up',
        ...common,
      };
}

/** The URL without credentials or query: a token in a webhook URL must not reach a browser. */
function safeUrlOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(invalid url)'; // Validated by the config schema; only a hand-built app could get here.
  }
}

/** What a running server's webhooks need from the app: swap apps on reload, stop on shutdown. */
export interface RunningWebhooks extends Pick<WebhookDispatcher, 'recent' | 'backlog' | 'resend'> {
  /** Serves this app list from now on (a reload, or a change reported by the app store). */
  reload(apps: readonly ServedApp[]): void;
  close(drainMs: number): Promise<void>;
}

/**
 * Sends Pusher's webhooks for a server: every event the server decides once for the cluster (occupied, vacated,
 * members, client events, cache misses, subscription counts) goes to the dispatcher, which filters, batches,
 * signs and retries. Nothing runs when no app has webhooks, unless apps come from a store (`dynamic`), where
 * they may gain webhooks at run time.
 */
export function startWebhooks(options: {
  readonly server: RealtimeServer;
  readonly apps: readonly ServedApp[];
  readonly settings: RealtimeConfig['webhooks'];
  readonly logger: Logger;
  readonly queue?: WebhookQueue | undefined;
  /** Apps may change at run time (an app store): run even while no app has webhooks yet. */
  readonly dynamic?: boolean;
  /** Recent requests kept per app for the operator console (0: none). */
  readonly keepRecent?: number;
}): RunningWebhooks | undefined {
  let apps = webhookApps(options.apps);
  if (apps.size === 0 && !options.dynamic) return undefined;
  const { server } = options;
  const dispatcher: WebhookDispatcher = createWebhookDispatcher({
    apps: (appId) => apps.get(appId),
    ...dispatcherSettingsFromConfig(options.settings),
    ...(options.queue ? { queue: options.queue } : {}),
    logger: options.logger,
    metrics: server.metrics.registry,
    isStillTrue: createEventCheck(server),
    keepRecent: options.keepRecent ?? 0,
    // Into the live debug log; the port ignores it while no console watches the app.
    onAttempt: (report) => server.debug.report(report.job.appId, debugEventOf(report)),
  });
  const emit = dispatcher.emit.bind(dispatcher);
  const events = server.events;
  events.on('channelOccupied', ({ appId, channel }) => emit(appId, webhookEvent.channelOccupied(channel)));
  events.on('channelVacated', ({ appId, channel }) => emit(appId, webhookEvent.channelVacated(channel)));
  events.on('memberAdded', ({ appId, channel, userId }) =>
    emit(appId, webhookEvent.memberAdded(channel, userId)),
  );
  events.on('memberRemoved', ({ appId, channel, userId }) =>
    emit(appId, webhookEvent.memberRemoved(channel, userId)),
  );
  events.on('clientEvent', ({ appId, channel, event, data, socketId, userId }) =>
    emit(appId, webhookEvent.clientEvent({ channel, event, data, socketId, userId })),
  );
  events.on('cacheMiss', ({ appId, channel }) => emit(appId, webhookEvent.cacheMiss(channel)));
  events.on('subscriptionCount', ({ appId, channel, count }) =>
    emit(appId, webhookEvent.subscriptionCount(channel, count)),
  );
  return {
    reload(next) {
      apps = webhookApps(next);
    },
    close: (drainMs) => dispatcher.close({ drainMs }),
    recent: (appId) => dispatcher.recent(appId),
    backlog: (appId) => dispatcher.backlog(appId),
    resend: (appId, id) => dispatcher.resend(appId, id),
  };
}
