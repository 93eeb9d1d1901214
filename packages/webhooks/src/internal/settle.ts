import type { Logger } from '../logger.js';
import type { ClaimedWebhookJob, WebhookQueue } from '../queue.js';
import { messageOf, safeUrl } from './log-fields.js';

/** Ends a claimed job's lease (acked, or put back to run again after a delay); logs a failure, never throws. */
export interface Settler {
  ack(job: ClaimedWebhookJob): Promise<void>;
  retryLater(job: ClaimedWebhookJob, delayMs: number): Promise<void>;
}

/** Creates a {@link Settler} over a queue. */
export function createSettler(queue: WebhookQueue, logger: Logger): Settler {
  const settle = async (operation: 'ack' | 'retryLater', job: ClaimedWebhookJob, done: Promise<boolean>) => {
    try {
      if (!(await done)) {
        logger.warn('webhook job lease had lapsed; another consumer may send it again', {
          appId: job.appId,
          url: safeUrl(job.url),
          operation,
        });
      }
    } catch (error) {
      // The lease will lapse and the job will be claimed again: at-least-once, never lost.
      logger.warn('webhook queue operation failed', { operation, appId: job.appId, error: messageOf(error) });
    }
  };
  return {
    ack: (job) => settle('ack', job, queue.ack(job)),
    retryLater: (job, delayMs) => settle('retryLater', job, queue.retryLater(job, delayMs)),
  };
}
