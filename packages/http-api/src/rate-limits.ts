import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { ApiApp } from './api-app.js';
import type { Logger } from './logger.js';

/** What one limiter allows: `points` per `duration` seconds for each key, keys namespaced by `keyPrefix`. */
export interface RateLimitBudget {
  readonly keyPrefix: string;
  readonly points: number;
  readonly duration: number;
}

/**
 * Where rate-limit counters live: makes a rate-limiter-flexible limiter for a budget. The default keeps them in
 * this process's memory; a Redis store (`RateLimiterRedis`) shares them across a cluster.
 */
export type RateLimitStore = (budget: RateLimitBudget) => RateLimiterAbstract;

/** Keeps rate-limit counters in this process's memory. */
export const memoryRateLimitStore: RateLimitStore = (budget) => new RateLimiterMemory({ ...budget });

/** Per-app rate limits of the HTTP API; a limit that is not a positive finite number is off. */
export interface RateLimitOptions {
  /** Events an app may publish per second, a batch counting each of its events (100 by default). */
  readonly maxBackendEventsPerSecond?: number | undefined;
  /** `GET` requests an app may make per second (50 by default). */
  readonly maxReadRequestsPerSecond?: number | undefined;
  /** Where the counters live; this process's memory by default. */
  readonly store?: RateLimitStore | undefined;
}

/** The two budgets every app has. */
export type RateLimitKind = 'backend_events' | 'read_requests';

/** The state of a budget after taking from it. */
export interface RateLimitOutcome {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the budget refills enough to allow a request again. */
  readonly retryAfterSeconds: number;
}

/** Takes points from an app's budgets. */
export interface AppRateLimits {
  /** Takes `points` from the app's budget; `undefined` when that limit is off. */
  take(app: ApiApp, kind: RateLimitKind, points: number): Promise<RateLimitOutcome | undefined>;
}

const DEFAULT_LIMITS = { backend_events: 100, read_requests: 50 } as const;

function outcomeOf(allowed: boolean, limit: number, res: RateLimiterRes): RateLimitOutcome {
  return {
    allowed,
    limit,
    remaining: Math.max(0, res.remainingPoints),
    retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  };
}

/**
 * Creates the per-app limiters for the HTTP API. A store that fails (Redis down) lets the request through and
 * logs a warning: a limiter outage must not take the API down with it.
 */
export function createAppRateLimits(options: RateLimitOptions, logger: Logger): AppRateLimits {
  const store = options.store ?? memoryRateLimitStore;
  const limiters = new Map<string, RateLimiterAbstract>();
  const limitOf = (app: ApiApp, kind: RateLimitKind): number =>
    kind === 'backend_events'
      ? (app.maxBackendEventsPerSecond ?? options.maxBackendEventsPerSecond ?? DEFAULT_LIMITS.backend_events)
      : (app.maxReadRequestsPerSecond ?? options.maxReadRequestsPerSecond ?? DEFAULT_LIMITS.read_requests);

  return {
    async take(app, kind, points) {
      const limit = limitOf(app, kind);
      if (!Number.isFinite(limit) || limit <= 0) return undefined;
      // One limiter per budget size: apps with their own limits get their own counters.
      const id = `${kind}:${limit}`;
      let limiter = limiters.get(id);
      if (limiter === undefined) {
        limiter = store({ keyPrefix: `herald:http-api:${id}`, points: limit, duration: 1 });
        limiters.set(id, limiter);
      }
      try {
        return outcomeOf(true, limit, await limiter.consume(app.id, points));
      } catch (error) {
        if (error instanceof RateLimiterRes) return outcomeOf(false, limit, error);
        logger.warn('rate limit store failed; letting the request through', { appId: app.id, kind, error });
        return undefined;
      }
    },
  };
}

/** The `X-RateLimit-*` and (when refused) `Retry-After` headers for an outcome. */
export function rateLimitHeaders(outcome: RateLimitOutcome): Record<string, string> {
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(outcome.limit),
    'X-RateLimit-Remaining': String(outcome.remaining),
  };
  if (!outcome.allowed) headers['Retry-After'] = String(outcome.retryAfterSeconds);
  return headers;
}
