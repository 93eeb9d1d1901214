// The queue port: where signed-to-be requests wait between the server's hot path and the HTTP client. Jobs of
// one lane (one app and one webhook target) are handed out one at a time, in the order they were queued, so a
// receiver sees a channel's events in order even while an earlier request is being retried.

/** One request to make: a batch of events for one webhook target of one app. */
export interface WebhookJob {
  /** The ordering key: the jobs of one lane are delivered one after the other, in queue order. */
  readonly lane: string;
  readonly appId: string;
  readonly url: string;
  /** The webhook's own extra headers (the dispatcher adds the Pusher ones when it sends). */
  readonly headers: Readonly<Record<string, string>>;
  /** The exact request body, `{"time_ms":…,"events":[…]}`; it is signed at send time with the app secret. */
  readonly body: string;
  /** How many events the body holds (for the per-app cap and the metrics). */
  readonly events: number;
  /** When the job was queued (ms since the epoch); retries stop `maxElapsedMs` after this. */
  readonly createdAt: number;
}

/** A job handed out by {@link WebhookQueue.claim}: leased to one consumer until acked, retried or lapsed. */
export interface ClaimedWebhookJob extends WebhookJob {
  /** The queue's id of the job. */
  readonly id: string;
  /** Failed attempts so far (0 on the first claim). */
  readonly attempts: number;
  /** Who holds the lease: the consumer passed to `claim`. */
  readonly consumer: string;
}

/** What {@link WebhookQueue.enqueue} answers: queued, or refused because the app's queue is full. */
export type EnqueueOutcome = 'queued' | 'full';

/**
 * The queue port of the dispatcher. An implementation guarantees, for each lane: at most one job leased at a
 * time, and always the oldest unfinished one; a leased job that is neither acked nor retried within `leaseMs`
 * can be claimed again (by any consumer); a job put back with `retryLater` keeps its place at the head of its
 * lane. Contract tests for implementations ship at `@herald/webhooks/testing`.
 */
export interface WebhookQueue {
  /** How long a claim lasts without an ack or retry before another consumer may take the job over. */
  readonly leaseMs: number;
  /** Adds a job at the tail of its lane, unless the app already has `maxEvents` events queued. */
  enqueue(job: WebhookJob, limits?: { readonly maxEvents?: number | undefined }): Promise<EnqueueOutcome>;
  /** Leases up to `max` due jobs to `consumer`, at most one per lane, each the head of its lane. */
  claim(consumer: string, max: number): Promise<ClaimedWebhookJob[]>;
  /** Finishes a job (delivered, or given up): it leaves the queue. False when the lease had been lost. */
  ack(job: ClaimedWebhookJob): Promise<boolean>;
  /** Counts a failed attempt and releases the job; it stays at the head of its lane, due after `delayMs`. */
  retryLater(job: ClaimedWebhookJob, delayMs: number): Promise<boolean>;
  /** The number of events queued, for one app or for all. */
  depth(appId?: string): Promise<number>;
}
