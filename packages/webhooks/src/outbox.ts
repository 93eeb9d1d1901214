import type { Batch } from './batcher.js';
import type { AppEventCounts } from './internal/app-event-counts.js';
import { messageOf, safeUrl } from './internal/log-fields.js';
import { delay } from './internal/wait.js';
import type { Logger } from './logger.js';
import type { DispatcherMetrics, DropReason } from './metrics.js';
import type { WebhookEventCheck } from './options.js';
import type { WebhookJob, WebhookQueue } from './queue.js';
import { createStaleCheck } from './stale-check.js';
import type { ThrottledLog } from './throttled-log.js';

/** How long to wait before offering a job again to a queue that refused it (a Redis that is away). */
const QUEUE_RETRY_MS = 500;

/**
 * Batches on their way into the queue, one at a time in the order they were formed: the order of a lane is fixed
 * for good once a job is queued.
 */
export interface Outbox {
  /** Takes a finished batch; its events stay held until the queue took or refused them. */
  push(batch: Batch): void;
  isEmpty(): boolean;
  /** Whether a job is being offered to the queue right now. */
  isBusy(): boolean;
  /** Empties the outbox for good (on close), counting its events as dropped; answers how many there were. */
  abandon(): number;
}

interface Entry {
  readonly batch: Batch;
  /** When the batch was handed over: retries stop `maxElapsedMs` after it. */
  readonly createdAt: number;
}

/** Creates an {@link Outbox} that offers each batch, less its overtaken events, to `queue`. */
export function createOutbox(options: {
  readonly queue: WebhookQueue;
  readonly maxQueuedPerApp: number;
  /** Events of each app held in this process: released once the queue took or refused them. */
  readonly held: AppEventCounts;
  /** Tells which events were overtaken, to leave them out; without it, every event is queued. */
  readonly isStillTrue?: WebhookEventCheck | undefined;
  readonly signal: AbortSignal;
  /** A job was queued: the delivery loop may have work. */
  readonly onQueued: () => void;
  readonly drop: (appId: string, reason: DropReason, events: number) => void;
  readonly metrics: DispatcherMetrics;
  readonly logger: Logger;
  readonly throttled: ThrottledLog;
}): Outbox {
  const { queue, held, metrics, logger, isStillTrue } = options;
  const entries: Entry[] = [];
  let pumping = false;
  let queueTrouble = false;
  const staleCheck =
    isStillTrue &&
    createStaleCheck(isStillTrue, (appId, event, error) =>
      options.throttled(`check\u0000${appId}`, 1, (count) =>
        logger.warn('webhook event check failed; queueing the event as emitted', {
          appId,
          event: event.name,
          events: count,
          error: messageOf(error),
        }),
      ),
    );

  const jobOf = (entry: Entry, events: Batch['events']): WebhookJob => ({
    lane: entry.batch.target.lane,
    appId: entry.batch.appId,
    url: entry.batch.target.url,
    headers: entry.batch.target.headers,
    body: JSON.stringify({ time_ms: entry.batch.openedAt, events }),
    events: events.length,
    createdAt: entry.createdAt,
  });

  /** The job to queue now, without the events a later change overtook (`undefined` when none is left). */
  const current = async (entry: Entry): Promise<WebhookJob | undefined> => {
    const { appId, events, target } = entry.batch;
    const kept = staleCheck ? await staleCheck(appId, events) : events;
    const stale = events.length - kept.length;
    if (stale > 0) {
      metrics.stale(appId, stale);
      options.throttled(`stale\u0000${appId}`, stale, (count) =>
        logger.info('webhook events overtaken by a later change; left out', {
          appId,
          url: safeUrl(target.url),
          events: count,
        }),
      );
    }
    return kept.length === 0 ? undefined : jobOf(entry, kept);
  };

  const pump = async () => {
    if (pumping) return;
    pumping = true;
    try {
      while (entries.length > 0) {
        const entry = entries[0]!;
        // Checked on the way into the queue, where the order of a lane is fixed for good (see isStillTrue).
        const job = await current(entry);
        let outcome: 'queued' | 'full' | 'stale';
        try {
          outcome = job ? await queue.enqueue(job, { maxEvents: options.maxQueuedPerApp }) : 'stale';
        } catch (error) {
          if (!queueTrouble)
            logger.warn('webhook queue refused a job; retrying', { error: messageOf(error) });
          queueTrouble = true;
          if (options.signal.aborted) return;
          await delay(QUEUE_RETRY_MS);
          continue;
        }
        if (queueTrouble && job) logger.info('webhook queue accepts jobs again', {});
        if (job) queueTrouble = false;
        entries.shift();
        held.add(entry.batch.appId, -entry.batch.events.length);
        if (outcome === 'full' && job) {
          metrics.request(job.appId, 'dropped');
          options.drop(job.appId, 'queue_full', job.events);
        } else if (outcome === 'queued') {
          options.onQueued();
        }
      }
    } finally {
      pumping = false;
    }
  };

  return {
    push(batch) {
      entries.push({ batch, createdAt: Date.now() });
      void pump();
    },
    isEmpty: () => entries.length === 0,
    isBusy: () => pumping,
    abandon() {
      let lost = 0;
      for (const { batch } of entries.splice(0)) {
        metrics.dropped(batch.appId, 'closed', batch.events.length);
        lost += batch.events.length;
      }
      return lost;
    },
  };
}
