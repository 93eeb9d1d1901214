import type { DeliveryAttempt } from './delivery-attempt.js';
import { messageOf } from './internal/log-fields.js';
import type { Settler } from './internal/settle.js';
import { within } from './internal/wait.js';
import type { Logger } from './logger.js';
import type { ClaimedWebhookJob, WebhookQueue } from './queue.js';

/**
 * Claims due jobs from the queue, up to `concurrency` in flight, and runs an attempt on each. It asks again as soon
 * as something may have changed (a job queued, an attempt ended), and every `pollMs` otherwise (another process's
 * jobs, retries coming due).
 */
export interface DeliveryLoop {
  /** Something may be due: claim again now rather than at the next poll. */
  kick(): void;
  /**
   * Starts watching for quiet: the predicate answered holds once a claim that began after this call found
   * nothing due and no attempt is running.
   */
  quietFromNow(): () => boolean;
  /** Once the signal has aborted: waits, up to `ms`, for the loop and the attempts in flight to end. */
  stopped(ms: number): Promise<void>;
}

/** Creates and starts a {@link DeliveryLoop}; it runs until `signal` aborts. */
export function createDeliveryLoop(options: {
  readonly queue: WebhookQueue;
  readonly consumer: string;
  readonly concurrency: number;
  readonly pollMs: number;
  readonly signal: AbortSignal;
  readonly attempt: DeliveryAttempt;
  readonly settler: Settler;
  readonly logger: Logger;
}): DeliveryLoop {
  const { queue, signal, logger } = options;
  const inFlight = new Set<Promise<void>>();
  /** Set by kick(): skip the next wait. */
  let kicked = false;
  let wake: (() => void) | undefined;
  /** The last claim found nothing due while nothing ran. */
  let idle = false;
  /** Claims answered so far. */
  let claimRound = 0;

  const kick = () => {
    kicked = true;
    wake?.();
  };
  signal.addEventListener('abort', () => wake?.(), { once: true });

  const start = (job: ClaimedWebhookJob) => {
    const running = options
      .attempt(job)
      .catch((error: unknown) => {
        // An attempt handles its own failures; this is a last guard so that a bug cannot stop the loop.
        logger.error('webhook delivery crashed', { appId: job.appId, error: messageOf(error) });
      })
      .finally(() => {
        inFlight.delete(running);
        kick();
      });
    inFlight.add(running);
  };

  /** The last claim failed: say so once, and once more when the queue answers again. */
  let troubled = false;
  const claim = async (free: number) => {
    try {
      const jobs = await queue.claim(options.consumer, free);
      if (troubled) logger.info('webhook queue answers again', {});
      troubled = false;
      idle = jobs.length === 0 && inFlight.size === 0;
      claimRound += 1;
      if (signal.aborted) {
        // Claimed while stopping: hand them straight back.
        for (const job of jobs) await options.settler.retryLater(job, 0);
        return;
      }
      for (const job of jobs) start(job);
    } catch (error) {
      if (!troubled) logger.warn('webhook queue claim failed', { error: messageOf(error) });
      troubled = true;
      idle = false;
    }
  };

  const loop = (async () => {
    while (!signal.aborted) {
      kicked = false;
      const free = options.concurrency - inFlight.size;
      if (free > 0) await claim(free);
      if (kicked || signal.aborted) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  })();

  return {
    kick,
    quietFromNow() {
      // A claim may be under way that began before the caller's work was queued: wait for the one after it.
      const round = claimRound + 1;
      kick();
      return () => claimRound > round && idle && inFlight.size === 0;
    },
    // Bounded: a queue that stopped answering (a stalled Redis connection) must not keep close() waiting.
    stopped: (ms) => within(Promise.allSettled([loop, ...inFlight]), ms),
  };
}
