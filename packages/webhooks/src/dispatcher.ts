import { randomBytes } from 'node:crypto';
import { signWebhook } from '@herald/protocol-core';
import type { Registry } from 'prom-client';
import { type RetryOptions, retryDelay } from './backoff.js';
import type { WebhookConfig } from './config.js';
import { WebhooksError } from './errors.js';
import type { WebhookEvent } from './events.js';
import { compileTargets, type Target, wants } from './internal/targets.js';
import { type Logger, silentLogger } from './logger.js';
import { createMemoryWebhookQueue } from './memory-queue.js';
import { createDispatcherMetrics, type DropReason } from './metrics.js';
import type { ClaimedWebhookJob, WebhookJob, WebhookQueue } from './queue.js';

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

/** Options of {@link createWebhookDispatcher}. */
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
   * and it is tried again): the last `channel_occupied`/`channel_vacated` of each channel, the last
   * `member_added`/`member_removed` of each user in a channel, and the last `subscription_count` of each channel,
   * in the batch. One it answers false for was
   * overtaken by a later change (decided elsewhere, say on another node, whose request may already be queued):
   * it is left out, counted in `herald_webhook_stale_events_total` and logged at info; a batch left empty is not
   * queued. An event whose check throws is queued as it is. Once queued, events are not checked again: a
   * receiver that was down still gets every change that held when it was queued, in order.
   */
  readonly isStillTrue?: WebhookEventCheck | undefined;
}

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
  /** Queues the batches being gathered, delivers what is due for up to `drainMs`, then stops. */
  close(options?: CloseOptions): Promise<void>;
}

interface Batch {
  readonly appId: string;
  readonly target: Target;
  readonly events: WebhookEvent[];
  readonly openedAt: number;
  timer: NodeJS.Timeout | undefined;
}

const DROP_LOG_EVERY_MS = 10_000;

/**
 * What a later change of the same subject overtakes: a channel's occupancy, a user's membership of a channel, a
 * channel's subscription count.
 */
function subjectOf(event: WebhookEvent): string | undefined {
  switch (event.name) {
    case 'channel_occupied':
    case 'channel_vacated':
      return `c\u0000${event.channel}`;
    case 'member_added':
    case 'member_removed':
      return `m\u0000${event.channel}\u0000${event.user_id}`;
    case 'subscription_count':
      return `s\u0000${event.channel}`;
    default:
      return undefined;
  }
}

/** A job's body as the dispatcher wrote it. */
interface JobBody {
  readonly time_ms: number;
  readonly events: readonly WebhookEvent[];
}

/** The URL without credentials or query, for logs: a token in a webhook URL must not reach them. */
function safeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(invalid url)'; // Validated by the config schema; only a hand-built app could get here.
  }
}

const messageOf = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
};

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
  const fetchFn: WebhookFetch = options.fetch ?? ((url, init) => fetch(url, init));
  const logger = options.logger ?? silentLogger;
  const retry = options.retry ?? {};
  const maxElapsedMs = retry.maxElapsedMs ?? 300_000;
  const requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
  const maxQueued = options.maxQueuedPerApp ?? 10_000;
  const concurrency = options.concurrency ?? 32;
  const pollMs = options.pollMs ?? 250;
  const consumer = options.consumer ?? `webhooks-${randomBytes(6).toString('hex')}`;
  if (!(requestTimeoutMs > 0) || requestTimeoutMs >= queue.leaseMs) {
    throw new WebhooksError(
      'invalid_options',
      `requestTimeoutMs (${requestTimeoutMs}) must be positive and below the queue's leaseMs (${queue.leaseMs})`,
    );
  }
  for (const [name, value] of [
    ['maxQueuedPerApp', maxQueued],
    ['concurrency', concurrency],
    ['pollMs', pollMs],
  ] as const) {
    if (!(value > 0)) throw new WebhooksError('invalid_options', `${name} must be positive`);
  }

  const compiled = new WeakMap<WebhookApp, Target[]>();
  const batches = new Map<string, Batch>();
  const outbox: WebhookJob[] = [];
  /** Events of each app held in this process: in batches and in the outbox. */
  const held = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();
  const stop = new AbortController();
  let closing = false;
  let pumping = false;
  let idle = false;
  let claimRound = 0;
  let kicked = false;
  let wake: (() => void) | undefined;
  let queueTrouble = false;

  const hold = (appId: string, delta: number) => {
    const next = (held.get(appId) ?? 0) + delta;
    if (next <= 0) held.delete(appId);
    else held.set(appId, next);
  };
  const heldTotal = () => {
    let total = 0;
    for (const events of held.values()) total += events;
    return total;
  };
  const metrics = createDispatcherMetrics(options.metrics, async () => heldTotal() + (await queue.depth()));

  const kick = () => {
    kicked = true;
    wake?.();
  };

  /**
   * Logs at most one line per app and kind every few seconds, with the events counted since the last line: a
   * flood of drops must not become a flood of logs.
   */
  const throttled = new Map<string, { count: number; loggedAt: number }>();
  const logThrottled = (key: string, events: number, write: (events: number) => void) => {
    const now = Date.now();
    const seen = throttled.get(key);
    if (seen && now - seen.loggedAt < DROP_LOG_EVERY_MS) {
      seen.count += events;
      return;
    }
    write(events + (seen?.count ?? 0));
    throttled.set(key, { count: 0, loggedAt: now });
  };

  const noteDrop = (appId: string, reason: DropReason, events: number) => {
    metrics.dropped(appId, reason, events);
    logThrottled(`drop\u0000${appId}`, events, (count) =>
      logger.error('webhook events dropped', { appId, reason, events: count, maxQueuedPerApp: maxQueued }),
    );
  };

  const batchingOf = (app: WebhookApp) => {
    const own = app.batching ?? {};
    const shared = options.batching ?? {};
    return {
      enabled: own.enabled ?? shared.enabled ?? true,
      windowMs: own.windowMs ?? shared.windowMs ?? 50,
      maxEvents: own.maxEvents ?? shared.maxEvents ?? 100,
    };
  };

  const targetsOf = (appId: string, app: WebhookApp): Target[] => {
    let targets = compiled.get(app);
    if (!targets) {
      targets = compileTargets(appId, app.webhooks);
      compiled.set(app, targets);
    }
    return targets;
  };

  const checkFailed = (appId: string, event: WebhookEvent, error: unknown): true => {
    logThrottled(`check\u0000${appId}`, 1, (count) =>
      logger.warn('webhook event check failed; queueing the event as emitted', {
        appId,
        event: event.name,
        events: count,
        error: messageOf(error),
      }),
    );
    return true;
  };

  /**
   * The job to queue now: as built, or, with `isStillTrue`, without the events a later change overtook
   * (`undefined` when none is left). Only the last occupancy event of each channel, and the last membership event
   * of each user in a channel, is checked: the ones before it in the same request are this node's own earlier
   * changes, already in order.
   */
  const checked = async (job: WebhookJob): Promise<WebhookJob | undefined> => {
    const check = options.isStillTrue;
    if (!check) return job;
    let body: JobBody | undefined;
    try {
      body = JSON.parse(job.body) as JobBody;
    } catch {
      body = undefined;
    }
    if (!Array.isArray(body?.events)) return job; // Built by this dispatcher; cannot happen.
    const { events } = body;
    const last = new Map<string, number>();
    events.forEach((event, index) => {
      const subject = subjectOf(event);
      if (subject !== undefined) last.set(subject, index);
    });
    if (last.size === 0) return job;
    // Never in the emitter's own call stack: a server may emit a change before it has finished making it (say,
    // occupied as it creates the channel, before it counts the subscriber).
    await Promise.resolve();
    const verdicts = [...last.values()].map((index): boolean | Promise<boolean> => {
      const event = events[index]!;
      try {
        const verdict = check(job.appId, event);
        return typeof verdict === 'boolean'
          ? verdict
          : verdict.catch((error: unknown) => checkFailed(job.appId, event, error));
      } catch (error) {
        return checkFailed(job.appId, event, error);
      }
    });
    const holds = verdicts.some((verdict) => typeof verdict !== 'boolean')
      ? await Promise.all(verdicts)
      : (verdicts as boolean[]);
    const stale = new Set([...last.values()].filter((_, position) => holds[position] === false));
    if (stale.size === 0) return job;
    metrics.stale(job.appId, stale.size);
    logThrottled(`stale\u0000${job.appId}`, stale.size, (count) =>
      logger.info('webhook events overtaken by a later change; left out', {
        appId: job.appId,
        url: safeUrl(job.url),
        events: count,
      }),
    );
    const kept = events.filter((_, index) => !stale.has(index));
    if (kept.length === 0) return undefined;
    return { ...job, body: JSON.stringify({ time_ms: body.time_ms, events: kept }), events: kept.length };
  };

  const pump = async () => {
    if (pumping) return;
    pumping = true;
    try {
      while (outbox.length > 0) {
        const built = outbox[0]!;
        // Checked on the way into the queue, where the order of a lane is fixed for good (see isStillTrue).
        const job = await checked(built);
        let outcome: 'queued' | 'full' | 'stale';
        try {
          outcome = job ? await queue.enqueue(job, { maxEvents: maxQueued }) : 'stale';
        } catch (error) {
          if (!queueTrouble)
            logger.warn('webhook queue refused a job; retrying', { error: messageOf(error) });
          queueTrouble = true;
          if (stop.signal.aborted) return;
          await new Promise((resolve) => setTimeout(resolve, 500));
          continue;
        }
        if (queueTrouble && job) logger.info('webhook queue accepts jobs again', {});
        if (job) queueTrouble = false;
        outbox.shift();
        hold(built.appId, -built.events);
        if (outcome === 'full' && job) {
          metrics.request(job.appId, 'dropped');
          noteDrop(job.appId, 'queue_full', job.events);
        } else if (outcome === 'queued') {
          kick();
        }
      }
    } finally {
      pumping = false;
    }
  };

  const queueJob = (appId: string, target: Target, events: readonly WebhookEvent[], timeMs: number) => {
    outbox.push({
      lane: target.lane,
      appId,
      url: target.url,
      headers: target.headers,
      body: JSON.stringify({ time_ms: timeMs, events }),
      events: events.length,
      createdAt: Date.now(),
    });
    void pump();
  };

  const flush = (batch: Batch) => {
    if (batch.timer) clearTimeout(batch.timer);
    batches.delete(batch.target.lane);
    queueJob(batch.appId, batch.target, batch.events, batch.openedAt);
  };

  const emit = (appId: string, event: WebhookEvent) => {
    try {
      const app = options.apps(appId);
      if (!app || app.webhooks.length === 0) return;
      if (closing) {
        metrics.dropped(appId, 'closed', 1);
        return;
      }
      let batching: ReturnType<typeof batchingOf> | undefined;
      for (const target of targetsOf(appId, app)) {
        if (!wants(target, event)) continue;
        if ((held.get(appId) ?? 0) >= maxQueued) {
          noteDrop(appId, 'queue_full', 1);
          continue;
        }
        hold(appId, 1);
        batching ??= batchingOf(app);
        if (!batching.enabled || batching.windowMs === 0 || batching.maxEvents <= 1) {
          queueJob(appId, target, [event], Date.now());
          continue;
        }
        let batch = batches.get(target.lane);
        if (!batch) {
          batch = { appId, target, events: [], openedAt: Date.now(), timer: undefined };
          batches.set(target.lane, batch);
          const opened = batch;
          batch.timer = setTimeout(() => flush(opened), batching.windowMs);
        }
        batch.events.push(event);
        if (batch.events.length >= batching.maxEvents) flush(batch);
      }
    } catch (error) {
      // The hot path must never see a webhook problem: log it and carry on.
      logger.error('webhook emit failed', { appId, event: event?.name, error: messageOf(error) });
    }
  };

  const settle = async (what: string, job: ClaimedWebhookJob, operation: Promise<boolean>) => {
    try {
      const held = await operation;
      if (!held) {
        logger.warn('webhook job lease had lapsed; another consumer may send it again', {
          appId: job.appId,
          url: safeUrl(job.url),
          operation: what,
        });
      }
    } catch (error) {
      // The lease will lapse and the job will be claimed again: at-least-once, never lost.
      logger.warn('webhook queue operation failed', {
        operation: what,
        appId: job.appId,
        error: messageOf(error),
      });
    }
  };

  /** Makes one request; resolves with the answer's status, or why there was none. */
  const send = async (job: ClaimedWebhookJob, app: WebhookApp) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(job.headers)) {
      // Never let a custom header stand in for the ones the receiver verifies.
      const lower = name.toLowerCase();
      if (lower !== 'content-type' && lower !== 'x-pusher-key' && lower !== 'x-pusher-signature') {
        headers[name] = value;
      }
    }
    headers['Content-Type'] = 'application/json';
    headers['X-Pusher-Key'] = app.key;
    headers['X-Pusher-Signature'] = signWebhook(app.secret, job.body);
    // One controller per request (rather than AbortSignal.any): nothing stays attached to the long-lived stop signal.
    const request = new AbortController();
    const timer = setTimeout(
      () => request.abort(new Error(`no answer within ${requestTimeoutMs} ms`)),
      requestTimeoutMs,
    );
    const onStop = () => request.abort(new Error('dispatcher closed'));
    stop.signal.addEventListener('abort', onStop, { once: true });
    try {
      const response = await fetchFn(job.url, {
        method: 'POST',
        headers,
        body: job.body,
        redirect: 'manual',
        signal: request.signal,
      });
      // Read (and discard) the answer so that the connection can be reused.
      await response.arrayBuffer().catch(() => undefined);
      return { status: response.status };
    } catch (error) {
      return { failure: messageOf(error) };
    } finally {
      clearTimeout(timer);
      stop.signal.removeEventListener('abort', onStop);
    }
  };

  const deliver = async (job: ClaimedWebhookJob) => {
    let outcome: { status?: number; failure?: string };
    try {
      const app = options.apps(job.appId);
      const gone: DropReason | undefined = !app
        ? 'unknown_app'
        : targetsOf(job.appId, app).some((target) => target.lane === job.lane)
          ? undefined
          : 'unknown_webhook';
      if (!app || gone) {
        // The app, or this webhook of it, left the config: nobody wants these events any more.
        metrics.request(job.appId, 'dropped');
        noteDrop(job.appId, gone ?? 'unknown_app', job.events);
        await settle('ack', job, queue.ack(job));
        return;
      }
      outcome = await send(job, app);
    } catch (error) {
      // The app lookup failed (a store that is down): an attempt like any other, retried with backoff.
      outcome = { failure: `app lookup failed: ${messageOf(error)}` };
    }
    const { status, failure } = outcome;
    const fields = { appId: job.appId, url: safeUrl(job.url), events: job.events, attempt: job.attempts + 1 };
    if (status !== undefined && status >= 200 && status < 300) {
      metrics.request(job.appId, 'sent');
      metrics.delivered(job.appId, (Date.now() - job.createdAt) / 1000);
      await settle('ack', job, queue.ack(job));
      return;
    }
    if (status === undefined && stop.signal.aborted) {
      // Stopped mid-request: put it back for whoever runs next (another node, or this one after a restart).
      await settle('retryLater', job, queue.retryLater(job, 0));
      return;
    }
    const elapsed = Date.now() - job.createdAt;
    if (elapsed >= maxElapsedMs) {
      metrics.request(job.appId, 'failed');
      noteDrop(job.appId, 'gave_up', job.events);
      logger.error('webhook request failed; giving up', {
        ...fields,
        status,
        error: failure,
        elapsedMs: elapsed,
      });
      await settle('ack', job, queue.ack(job));
      return;
    }
    const delay = Math.min(retryDelay(job.attempts, retry), maxElapsedMs - elapsed);
    metrics.request(job.appId, 'retried');
    logger.warn('webhook request failed; will retry', {
      ...fields,
      status,
      error: failure,
      retryInMs: delay,
    });
    await settle('retryLater', job, queue.retryLater(job, delay));
  };

  const start = (job: ClaimedWebhookJob) => {
    const running = deliver(job)
      .catch((error: unknown) => {
        // deliver() handles its own failures; this is a last guard so that a bug cannot stop the loop.
        logger.error('webhook delivery crashed', { appId: job.appId, error: messageOf(error) });
      })
      .finally(() => {
        inFlight.delete(running);
        kick();
      });
    inFlight.add(running);
  };

  const loop = (async () => {
    let troubled = false;
    while (!stop.signal.aborted) {
      kicked = false;
      const free = concurrency - inFlight.size;
      if (free > 0) {
        try {
          const jobs = await queue.claim(consumer, free);
          if (troubled) logger.info('webhook queue answers again', {});
          troubled = false;
          idle = jobs.length === 0 && inFlight.size === 0;
          claimRound += 1;
          if (stop.signal.aborted) {
            // Claimed while stopping: hand them straight back.
            for (const job of jobs) await settle('retryLater', job, queue.retryLater(job, 0));
            break;
          }
          for (const job of jobs) start(job);
        } catch (error) {
          if (!troubled) logger.warn('webhook queue claim failed', { error: messageOf(error) });
          troubled = true;
          idle = false;
        }
      }
      if (kicked || stop.signal.aborted) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  })();

  let closed: Promise<void> | undefined;
  const within = async (work: Promise<unknown>, ms: number) => {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  };
  const until = async (done: () => boolean, deadline: number) => {
    while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  };

  return {
    consumer,
    emit,
    close(closeOptions = {}) {
      closed ??= (async () => {
        closing = true;
        const deadline = Date.now() + (closeOptions.drainMs ?? 5000);
        for (const batch of [...batches.values()]) flush(batch);
        await until(() => outbox.length === 0, deadline);
        // Idle only as seen by a claim that started after everything was queued.
        const round = claimRound + 1;
        kick();
        await until(() => claimRound > round && idle && inFlight.size === 0 && outbox.length === 0, deadline);
        stop.abort();
        wake?.();
        // Bounded: a queue that stopped answering (a stalled Redis connection) must not keep close() waiting.
        await within(Promise.allSettled([loop, ...inFlight]), 5000);
        await until(() => !pumping, Date.now() + 1000);
        const lost = outbox.reduce((sum, job) => sum + job.events, 0);
        for (const job of outbox.splice(0)) metrics.dropped(job.appId, 'closed', job.events);
        if (lost > 0) logger.error('webhook events never reached the queue before close', { events: lost });
        let left: number | undefined;
        await within(
          queue.depth().then(
            (depth) => {
              left = depth;
            },
            () => undefined,
          ),
          1000,
        );
        if (left) logger.info('webhook events left in the queue at close', { events: left });
      })();
      return closed;
    },
  };
}
