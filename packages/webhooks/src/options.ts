import type { Registry } from 'prom-client';
import type { RetryOptions } from './backoff.js';
import type { WebhookConfig } from './config.js';
import type { WebhookEvent } from './events.js';
import type { Logger } from './logger.js';
import type { WebhookQueue } from './queue.js';
import type { WebhookAttemptReport } from './recent-deliveries.js';

/** How events close together are gathered into one request per webhook target. */
export interface BatchingOptions {
  /** Batch events (true by default); off, every event is its own request. */
  readonly enabled?: boolean | undefined;
  /** How long the first event of a batch waits for others (50 ms by default). */
  readonly windowMs?: number | undefined;
  /** A batch is queued at once when it holds this many events (100 by default). */
  readonly maxEvents?: number | undefined;
}

/** What the dispatcher needs to know about an app: its credentials and webhooks. */
export interface WebhookApp {
  /** Sent as `X-Pusher-Key`. */
  readonly key: string;
  /** Signs each body (`X-Pusher-Signature`); never logged, never queued. */
  readonly secret: string;
  readonly webhooks: readonly WebhookConfig[];
  /** This app's batching, over the dispatcher's. */
  readonly batching?: BatchingOptions | undefined;
}

/** The HTTP client: the global `fetch` or anything with its shape. */
export type WebhookFetch = (url: string, init: RequestInit) => Promise<Response>;

/**
 * Tells whether an event still describes the present (false for a `channel_vacated` of a channel that has
 * subscribers again); may answer asynchronously. See {@link WebhookDispatcherOptions.isStillTrue}.
 */
export type WebhookEventCheck = (appId: string, event: WebhookEvent) => boolean | Promise<boolean>;

/** Options of `createWebhookDispatcher`. */
export interface WebhookDispatcherOptions {
  /**
   * Looks an app up by id; called on every `emit` and before every request (so a changed secret or a removed
   * app applies at once). Return the same object while the app is unchanged: its webhooks are compiled once per
   * object.
   */
  readonly apps: (appId: string) => WebhookApp | undefined;
  /** Where requests wait (in memory by default; `createRedisWebhookQueue` from @herald/scaling-redis when scaling). */
  readonly queue?: WebhookQueue | undefined;
  /** The HTTP client (the global fetch by default). */
  readonly fetch?: WebhookFetch | undefined;
  readonly batching?: BatchingOptions | undefined;
  readonly retry?: RetryOptions | undefined;
  /** A request not answered within this time counts as failed (10000 ms by default); below the queue's lease. */
  readonly requestTimeoutMs?: number | undefined;
  /** Events an app may have waiting in this process and, again, in the queue (10000 by default). */
  readonly maxQueuedPerApp?: number | undefined;
  /** Requests in flight at once from this dispatcher, each to a different target (32 by default). */
  readonly concurrency?: number | undefined;
  /** How often the queue is asked for due jobs when nothing woke the dispatcher up (250 ms by default). */
  readonly pollMs?: number | undefined;
  /** This dispatcher's name as a queue consumer (random by default); unique per process. */
  readonly consumer?: string | undefined;
  readonly logger?: Logger | undefined;
  /** A prom-client registry to register the `herald_webhook_*` metrics on. */
  readonly metrics?: Registry | undefined;
  /**
   * Checks occupancy, membership and count events as a batch enters the queue (and again if the queue refused it
   * and it is tried again): the last event of each subject in the batch (see `subjectOf`): the last
   * `channel_occupied`/`channel_vacated` of each channel, the last `member_added`/`member_removed` of each user in
   * a channel, and the last `subscription_count` of each channel. One it answers false for was
   * overtaken by a later change (decided elsewhere, say on another node, whose request may already be queued):
   * it is left out, counted in `herald_webhook_stale_events_total` and logged at info; a batch left empty is not
   * queued. An event whose check throws is queued as it is. Once queued, events are not checked again: a
   * receiver that was down still gets every change that held when it was queued, in order.
   */
  readonly isStillTrue?: WebhookEventCheck | undefined;
  /**
   * Recent requests kept per app for {@link WebhookDispatcher.recent} and `resend` (an operator console); 0, the
   * default, keeps none.
   */
  readonly keepRecent?: number | undefined;
  /** Told of every attempt's outcome (status or error, latency), e.g. for a live debug log. Must not throw. */
  readonly onAttempt?: ((report: WebhookAttemptReport) => void) | undefined;
}
