import { randomBytes } from 'node:crypto';
import { type Batcher, createBatcher } from './batcher.js';
import { createDeliveryAttempt } from './delivery-attempt.js';
import { createDeliveryLoop, type DeliveryLoop } from './delivery-loop.js';
import { WebhooksError } from './errors.js';
import type { WebhookEvent } from './events.js';
import { createAppEventCounts } from './internal/app-event-counts.js';
import { messageOf } from './internal/log-fields.js';
import { createSettler } from './internal/settle.js';
import { createTargetLookup, wants } from './internal/targets.js';
import { until, within } from './internal/wait.js';
import { type Logger, silentLogger } from './logger.js';
import { createMemoryWebhookQueue } from './memory-queue.js';
import { createDispatcherMetrics, type DropReason } from './metrics.js';
import type { WebhookDispatcherOptions } from './options.js';
import { createOutbox, type Outbox } from './outbox.js';
import type { WebhookQueue } from './queue.js';
import {
  createRecentDeliveries,
  type RecentDeliveries,
  resendLane,
  type WebhookAttemptReport,
  type WebhookDelivery,
} from './recent-deliveries.js';
import { createSender } from './sender.js';
import { createThrottledLog } from './throttled-log.js';

/** Options of {@link WebhookDispatcher.close}. */
export interface CloseOptions {
  /**
   * How long to keep delivering what is due before stopping (5000 ms by default). Requests still in flight after
   * it are aborted and put back; jobs waiting for a retry stay in the queue (lost with a memory queue).
   */
  readonly drainMs?: number | undefined;
}

/** Sends an app's webhook events: filtered, batched, queued, signed, delivered and retried. */
export interface WebhookDispatcher {
  /** This dispatcher's consumer name in the queue. */
  readonly consumer: string;
  /**
   * Hands an event over for delivery to every webhook of the app that wants it. Returns at once and never
   * throws: it is called on the WebSocket hot path.
   */
  emit(appId: string, event: WebhookEvent): void;
  /** The app's recent requests, newest first (none unless `keepRecent` is set). */
  recent(appId: string): WebhookDelivery[];
  /** Events of the app waiting: gathered in this process and queued (for every process, with a shared queue). */
  backlog(appId: string): Promise<number>;
  /**
   * Sends a failed request again (one still retrying, or given up), with the same body, signed at send time like
   * every attempt. `not_found` when it is not among the recent ones or was delivered; `full` when the queue refused.
   */
  resend(appId: string, id: string): Promise<'queued' | 'full' | 'not_found'>;
  /** Queues the batches being gathered, delivers what is due for up to `drainMs`, then stops. */
  close(options?: CloseOptions): Promise<void>;
}

/** The numbers the dispatcher runs with, defaults applied and checked. */
function settingsOf(options: WebhookDispatcherOptions, queue: WebhookQueue) {
  const settings = {
    maxElapsedMs: options.retry?.maxElapsedMs ?? 300_000,
    requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
    maxQueuedPerApp: options.maxQueuedPerApp ?? 10_000,
    concurrency: options.concurrency ?? 32,
    pollMs: options.pollMs ?? 250,
  };
  if (!(settings.requestTimeoutMs > 0) || settings.requestTimeoutMs >= queue.leaseMs) {
    throw new WebhooksError(
      'invalid_options',
      `requestTimeoutMs (${settings.requestTimeoutMs}) must be positive and below the queue's leaseMs (${queue.leaseMs})`,
    );
  }
  for (const name of ['maxQueuedPerApp', 'concurrency', 'pollMs'] as const) {
    if (!(settings[name] > 0)) throw new WebhooksError('invalid_options', `${name} must be positive`);
  }
  return settings;
}

/** Stops the parts in order: what was gathered goes into the queue, what is due is delivered, then the loop stops. */
async function drain(
  parts: {
    readonly batcher: Batcher;
    readonly outbox: Outbox;
    readonly loop: DeliveryLoop;
    readonly stop: AbortController;
    readonly queue: WebhookQueue;
    readonly logger: Logger;
  },
  drainMs: number,
): Promise<void> {
  const { outbox, loop, logger } = parts;
  const deadline = Date.now() + drainMs;
  parts.batcher.flushAll();
  await until(outbox.isEmpty, deadline);
  const quiet = loop.quietFromNow();
  await until(() => quiet() && outbox.isEmpty(), deadline);
  parts.stop.abort();
  await loop.stopped(5000);
  await until(() => !outbox.isBusy(), Date.now() + 1000);
  const lost = outbox.abandon();
  if (lost > 0) logger.error('webhook events never reached the queue before close', { events: lost });
  let left: number | undefined;
  await within(
    parts.queue.depth().then(
      (depth) => {
        left = depth;
      },
      () => undefined,
    ),
    1000,
  );
  if (left) logger.info('webhook events left in the queue at close', { events: left });
}

/**
 * Creates the webhook dispatcher of one server process.
 * @throws {WebhooksError} `invalid_options` when the request timeout is not below the queue's lease.
 * @example
 * ```ts
 * const dispatcher = createWebhookDispatcher({
 *   apps: (appId) => appsById.get(appId),
 *   retry: { maxElapsedMs: 300_000 },
 * });
 * dispatcher.emit('app-1', webhookEvent.channelOccupied('orders'));
 * await dispatcher.close();
 * ```
 */
export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const queue = options.queue ?? createMemoryWebhookQueue();
  const settings = settingsOf(options, queue);
  const logger = options.logger ?? silentLogger;
  const consumer = options.consumer ?? `webhooks-${randomBytes(6).toString('hex')}`;
  const held = createAppEventCounts();
  const metrics = createDispatcherMetrics(options.metrics, async () => held.total() + (await queue.depth()));
  const throttled = createThrottledLog();
  const drop = (appId: string, reason: DropReason, events: number) => {
    metrics.dropped(appId, reason, events);
    throttled(`drop\u0000${appId}`, events, (count) =>
      logger.error('webhook events dropped', {
        appId,
        reason,
        events: count,
        maxQueuedPerApp: settings.maxQueuedPerApp,
      }),
    );
  };
  const targetsOf = createTargetLookup();
  const stop = new AbortController();
  const settler = createSettler(queue, logger);
  const recent: RecentDeliveries | undefined =
    options.keepRecent && options.keepRecent > 0 ? createRecentDeliveries(options.keepRecent) : undefined;
  const onAttempt =
    recent || options.onAttempt
      ? (report: WebhookAttemptReport) => {
          recent?.record(report);
          options.onAttempt?.(report);
        }
      : undefined;

  const attempt = createDeliveryAttempt({
    apps: options.apps,
    targetsOf,
    send: createSender({
      fetch: options.fetch ?? ((url, init) => fetch(url, init)),
      requestTimeoutMs: settings.requestTimeoutMs,
      signal: stop.signal,
    }),
    settler,
    signal: stop.signal,
    retry: options.retry ?? {},
    maxElapsedMs: settings.maxElapsedMs,
    drop,
    metrics,
    logger,
    onAttempt,
  });
  const loop = createDeliveryLoop({
    queue,
    consumer,
    concurrency: settings.concurrency,
    pollMs: settings.pollMs,
    signal: stop.signal,
    attempt,
    settler,
    logger,
  });
  const outbox = createOutbox({
    queue,
    maxQueuedPerApp: settings.maxQueuedPerApp,
    held,
    isStillTrue: options.isStillTrue,
    signal: stop.signal,
    onQueued: loop.kick,
    drop,
    metrics,
    logger,
    throttled,
  });
  const batcher = createBatcher({ defaults: options.batching, onBatch: outbox.push });
  let closed: Promise<void> | undefined;

  return {
    consumer,
    emit(appId, event) {
      try {
        const app = options.apps(appId);
        if (!app || app.webhooks.length === 0) return;
        if (closed) {
          metrics.dropped(appId, 'closed', 1);
          return;
        }
        for (const target of targetsOf(appId, app)) {
          if (!wants(target, event)) continue;
          if (held.of(appId) >= settings.maxQueuedPerApp) {
            drop(appId, 'queue_full', 1);
            continue;
          }
          held.add(appId, 1);
          batcher.add(appId, app, target, event);
        }
      } catch (error) {
        // The hot path must never see a webhook problem: log it and carry on.
        logger.error('webhook emit failed', { appId, event: event?.name, error: messageOf(error) });
      }
    },
    recent: (appId) => recent?.list(appId) ?? [],
    backlog: async (appId) => held.of(appId) + (await queue.depth(appId)),
    async resend(appId, id) {
      const job = recent?.failedJob(appId, id);
      if (!job || closed) return 'not_found';
      const outcome = await queue.enqueue(
        { ...job, lane: resendLane(job.lane, id), createdAt: Date.now() },
        { maxEvents: settings.maxQueuedPerApp },
      );
      loop.kick();
      return outcome;
    },
    close(closeOptions = {}) {
      closed ??= drain({ batcher, outbox, loop, stop, queue, logger }, closeOptions.drainMs ?? 5000);
      return closed;
    },
  };
}
