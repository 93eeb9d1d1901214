// The last few webhook requests of each app, as an operator console lists them, with what "send again" needs: the
// exact body and the webhook's own headers (never the signature: a resend is signed at send time, like any attempt).

import { safeUrl } from './internal/log-fields.js';
import type { WebhookJob } from './queue.js';

/** Where a recent request stands. */
export type DeliveryState = 'delivered' | 'retrying' | 'failed';

/** One recent webhook request (a batch of events for one target), as the dispatcher last saw it. */
export interface WebhookDelivery {
  /** The queue's id of the job. */
  readonly id: string;
  readonly appId: string;
  /** The target without credentials or query. */
  readonly url: string;
  readonly events: number;
  /** Event names in the batch, in order. */
  readonly names: readonly string[];
  readonly state: DeliveryState;
  /** Attempts made so far. */
  readonly attempts: number;
  /** The last answer's status, when there was one. */
  readonly status?: number | undefined;
  /** Why the last attempt got no answer, when it got none. */
  readonly error?: string | undefined;
  /** How long the last attempt took. */
  readonly latencyMs: number;
  /** When the job was queued and last tried (ms since the epoch). */
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Set on a resend: the id of the delivery it repeats. */
  readonly resendOf?: string | undefined;
}

/** What one attempt came to, as the dispatcher reports it (`onAttempt`). */
export interface WebhookAttemptReport {
  readonly job: WebhookJob & { readonly id: string; readonly attempts: number };
  readonly status?: number | undefined;
  readonly error?: string | undefined;
  readonly latencyMs: number;
  readonly outcome: 'delivered' | 'retry' | 'gave_up';
}

/** Marks the lane of a job sent again, so that it does not wait behind its original still retrying. */
const RESEND_MARK = '#resend:';

/** The lane a resend of the job goes on (the original's lane, marked with the original's id). */
export function resendLane(lane: string, id: string): string {
  return `${baseLane(lane)}${RESEND_MARK}${id}`;
}

/** The webhook target's lane of a job, a resend's included. */
export function baseLane(lane: string): string {
  const mark = lane.indexOf(RESEND_MARK);
  return mark < 0 ? lane : lane.slice(0, mark);
}

function resendOf(lane: string): string | undefined {
  const mark = lane.indexOf(RESEND_MARK);
  return mark < 0 ? undefined : lane.slice(mark + RESEND_MARK.length);
}

interface Kept {
  delivery: WebhookDelivery;
  readonly job: WebhookJob;
}

/** The bounded record of recent deliveries per app. */
export interface RecentDeliveries {
  record(report: WebhookAttemptReport): void;
  /** Newest first. */
  list(appId: string): WebhookDelivery[];
  /** The job to send again, when the delivery is still kept and did not succeed. */
  failedJob(appId: string, id: string): WebhookJob | undefined;
}

function eventNames(body: string): string[] {
  try {
    const parsed = JSON.parse(body) as { events?: Array<{ name?: unknown }> };
    return (parsed.events ?? []).map((event) => String(event.name));
  } catch {
    return []; // The dispatcher wrote the body; a console simply shows no names for one it cannot read.
  }
}

/** Keeps the last `perApp` deliveries of each app (oldest dropped first). */
export function createRecentDeliveries(perApp: number): RecentDeliveries {
  const byApp = new Map<string, Map<string, Kept>>();
  return {
    record(report) {
      const { job } = report;
      let kept = byApp.get(job.appId);
      if (!kept) {
        kept = new Map();
        byApp.set(job.appId, kept);
      }
      const previous = kept.get(job.id);
      const now = Date.now();
      const delivery: WebhookDelivery = {
        id: job.id,
        appId: job.appId,
        url: safeUrl(job.url),
        events: job.events,
        names: previous?.delivery.names ?? eventNames(job.body),
        state:
          report.outcome === 'delivered' ? 'delivered' : report.outcome === 'retry' ? 'retrying' : 'failed',
        attempts: job.attempts + 1,
        status: report.status,
        error: report.error,
        latencyMs: report.latencyMs,
        createdAt: job.createdAt,
        updatedAt: now,
        resendOf: resendOf(job.lane),
      };
      kept.delete(job.id); // Re-inserted last: the map keeps the order of the latest attempts.
      kept.set(job.id, { delivery, job: previous?.job ?? job });
      if (kept.size > perApp) kept.delete(kept.keys().next().value as string);
    },
    list(appId) {
      return [...(byApp.get(appId)?.values() ?? [])].map((kept) => kept.delivery).reverse();
    },
    failedJob(appId, id) {
      const kept = byApp.get(appId)?.get(id);
      return kept && kept.delivery.state !== 'delivered' ? kept.job : undefined;
    },
  };
}
