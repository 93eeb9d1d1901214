import { type RetryOptions, retryDelay } from './backoff.js';
import { messageOf, safeUrl } from './internal/log-fields.js';
import type { Settler } from './internal/settle.js';
import type { TargetLookup } from './internal/targets.js';
import type { Logger } from './logger.js';
import type { DispatcherMetrics, DropReason } from './metrics.js';
import type { WebhookApp } from './options.js';
import type { ClaimedWebhookJob } from './queue.js';
import { baseLane, type WebhookAttemptReport } from './recent-deliveries.js';
import type { Sender, SendResult } from './sender.js';

/** What becomes of a job after an attempt. */
export type NextStep =
  /** Answered 2xx: delivered. */
  | { readonly kind: 'delivered' }
  /** Stopped mid-request (closing): back in the queue for whoever runs next, due at once. */
  | { readonly kind: 'put_back' }
  /** Failed again with no time left: dropped. */
  | { readonly kind: 'give_up'; readonly elapsedMs: number }
  /** Failed: tried again after the backoff, never later than the time left. */
  | { readonly kind: 'retry'; readonly delayMs: number };

/**
 * Decides what follows an attempt: only a 2xx answer delivers (a redirect is a failure); a failure is retried
 * with backoff until `maxElapsedMs` after the job was queued.
 */
export function nextStep(
  result: SendResult,
  job: Pick<ClaimedWebhookJob, 'attempts' | 'createdAt'>,
  context: {
    readonly now: number;
    /** The dispatcher is closing: a request without an answer was cut short rather than failed. */
    readonly stopped: boolean;
    readonly maxElapsedMs: number;
    readonly retry: RetryOptions;
    readonly random?: (() => number) | undefined;
  },
): NextStep {
  if ('status' in result && result.status >= 200 && result.status < 300) return { kind: 'delivered' };
  if (!('status' in result) && context.stopped) return { kind: 'put_back' };
  const elapsedMs = context.now - job.createdAt;
  if (elapsedMs >= context.maxElapsedMs) return { kind: 'give_up', elapsedMs };
  const backoff = retryDelay(job.attempts, context.retry, context.random);
  return { kind: 'retry', delayMs: Math.min(backoff, context.maxElapsedMs - elapsedMs) };
}

/** Makes one attempt at a claimed job, then acks it, puts it back or drops it. Never throws. */
export type DeliveryAttempt = (job: ClaimedWebhookJob) => Promise<void>;

/** Creates a {@link DeliveryAttempt}: the app is looked up again first, so config changes apply at once. */
export function createDeliveryAttempt(options: {
  readonly apps: (appId: string) => WebhookApp | undefined;
  readonly targetsOf: TargetLookup;
  readonly send: Sender;
  readonly settler: Settler;
  readonly signal: AbortSignal;
  readonly retry: RetryOptions;
  readonly maxElapsedMs: number;
  readonly drop: (appId: string, reason: DropReason, events: number) => void;
  readonly metrics: DispatcherMetrics;
  readonly logger: Logger;
  /** Told of every attempt that got an answer or failed (not of one cut short by closing). */
  readonly onAttempt?: ((report: WebhookAttemptReport) => void) | undefined;
}): DeliveryAttempt {
  const { settler, metrics, logger } = options;

  /** Why nobody wants the job any more (its app, or this webhook of it, left the config), if so. */
  const goneReason = (job: ClaimedWebhookJob, app: WebhookApp | undefined): DropReason | undefined => {
    if (!app) return 'unknown_app';
    return options.targetsOf(job.appId, app).some((target) => target.lane === baseLane(job.lane))
      ? undefined
      : 'unknown_webhook';
  };

  const report = (
    job: ClaimedWebhookJob,
    result: SendResult,
    outcome: 'delivered' | 'retry' | 'give_up',
    latencyMs: number,
  ) => {
    if (!options.onAttempt) return;
    try {
      options.onAttempt({
        job,
        status: 'status' in result ? result.status : undefined,
        error: 'failure' in result ? result.failure : undefined,
        latencyMs: Math.round(latencyMs),
        outcome: outcome === 'delivered' ? 'delivered' : outcome === 'give_up' ? 'gave_up' : 'retry',
      });
    } catch (error) {
      logger.error('webhook attempt listener threw', { appId: job.appId, error: messageOf(error) });
    }
  };

  return async (job) => {
    let result: SendResult;
    const started = performance.now();
    try {
      const app = options.apps(job.appId);
      const gone = goneReason(job, app);
      if (!app || gone) {
        metrics.request(job.appId, 'dropped');
        options.drop(job.appId, gone ?? 'unknown_app', job.events);
        await settler.ack(job);
        return;
      }
      result = await options.send(job, app);
    } catch (error) {
      // The app lookup failed (a store that is down): an attempt like any other, retried with backoff.
      result = { failure: `app lookup failed: ${messageOf(error)}` };
    }
    const step = nextStep(result, job, {
      now: Date.now(),
      stopped: options.signal.aborted,
      maxElapsedMs: options.maxElapsedMs,
      retry: options.retry,
    });
    const status = 'status' in result ? result.status : undefined;
    const failure = 'failure' in result ? result.failure : undefined;
    if (step.kind !== 'put_back') report(job, result, step.kind, performance.now() - started);
    const fields = { appId: job.appId, url: safeUrl(job.url), events: job.events, attempt: job.attempts + 1 };
    switch (step.kind) {
      case 'delivered':
        metrics.request(job.appId, 'sent');
        metrics.delivered(job.appId, (Date.now() - job.createdAt) / 1000);
        return settler.ack(job);
      case 'put_back':
        return settler.retryLater(job, 0);
      case 'give_up':
        metrics.request(job.appId, 'failed');
        options.drop(job.appId, 'gave_up', job.events);
        logger.error('webhook request failed; giving up', {
          ...fields,
          status,
          error: failure,
          elapsedMs: step.elapsedMs,
        });
        return settler.ack(job);
      case 'retry':
        metrics.request(job.appId, 'retried');
        logger.warn('webhook request failed; will retry', {
          ...fields,
          status,
          error: failure,
          retryInMs: step.delayMs,
        });
        return settler.retryLater(job, step.delayMs);
    }
  };
}
