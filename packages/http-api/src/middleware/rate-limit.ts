import type { Context } from 'hono';
import type { HttpApiEnv } from '../api-env.js';
import { HttpApiError } from '../errors.js';
import type { Logger } from '../logger.js';
import { type AppRateLimits, type RateLimitKind, rateLimitHeaders } from '../rate-limits.js';

/** Takes `points` from the request's app budget: adds the rate-limit headers, or throws the 429. */
export type TakeRateLimit = (c: Context<HttpApiEnv>, kind: RateLimitKind, points: number) => Promise<void>;

/** Creates the step that charges a request to its app's rate limits; it does nothing when limits are off. */
export function createRateLimitTaker(rateLimits: AppRateLimits | undefined, logger: Logger): TakeRateLimit {
  return async (c, kind, points) => {
    if (rateLimits === undefined) return;
    const app = c.get('app');
    const outcome = await rateLimits.take(app, kind, points);
    if (outcome === undefined) return;
    const headers = rateLimitHeaders(outcome);
    if (!outcome.allowed) {
      logger.info('rate limit reached', { appId: app.id, kind, limit: outcome.limit });
      const what = kind === 'backend_events' ? 'events' : 'read requests';
      throw new HttpApiError('rate_limited', `Too many ${what}: the limit is ${outcome.limit} per second`, {
        headers,
      });
    }
    c.set('responseHeaders', { ...c.get('responseHeaders'), ...headers });
  };
}
