import type { MiddlewareHandler } from 'hono';
import type { HttpApiEnv } from '../api-env.js';
import { HttpApiError } from '../errors.js';
import { readBodyWithin } from '../internal/read-body.js';
import type { Logger } from '../logger.js';
import { checkRequestAuth, publicAuthMessage } from '../request-auth.js';
import type { TakeRateLimit } from './rate-limit.js';

/** What {@link authenticate} needs. */
export interface AuthOptions {
  readonly maxRequestSize: number;
  /** The canonical route prefix; a signature over the path without it is also accepted. */
  readonly prefix: string;
  readonly logger: Logger;
  readonly takeRateLimit: TakeRateLimit;
}

/**
 * Creates the middleware that reads the body within the size limit (413 past it), authenticates the request by
 * bearer token or query signature (401), refuses a disabled app (403) and charges reads to the read budget.
 */
export function authenticate(options: AuthOptions): MiddlewareHandler<HttpApiEnv> {
  const { maxRequestSize, prefix, logger, takeRateLimit } = options;
  return async (c, next) => {
    const app = c.get('app');
    const body = await readBodyWithin(c.req.raw, maxRequestSize);
    if (!body.ok) {
      throw new HttpApiError('payload_too_large', `Request body is larger than ${maxRequestSize} bytes`);
    }
    c.set('body', body.value);
    const auth = checkRequestAuth(app, {
      method: c.req.method,
      url: new URL(c.req.url),
      authorization: c.req.header('authorization'),
      body: body.value,
      prefix,
    });
    if (!auth.ok) {
      // The log says exactly what was wrong (for the operator); the answer only what Pusher's API would.
      logger.info('request refused: bad auth', { appId: app.id, reason: auth.error.message });
      throw new HttpApiError('unauthorized', publicAuthMessage(auth.error));
    }
    if (!app.enabled) throw new HttpApiError('app_disabled', `App ${app.id} is disabled`);
    if (c.req.method === 'GET') await takeRateLimit(c, 'read_requests', 1);
    await next();
  };
}
