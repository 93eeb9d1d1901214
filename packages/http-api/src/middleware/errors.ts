import type { ErrorHandler, NotFoundHandler } from 'hono';
import type { HttpApiEnv } from '../api-env.js';
import { HttpApiError } from '../errors.js';
import { sendJson } from '../internal/respond.js';
import type { Logger } from '../logger.js';

/** Creates the error handler: an {@link HttpApiError} answers its status and message, anything else a logged 500. */
export function answerError(logger: Logger): ErrorHandler<HttpApiEnv> {
  return (error, c) => {
    if (error instanceof HttpApiError) {
      const body =
        error.field === undefined ? { error: error.message } : { error: error.message, field: error.field };
      return sendJson(c, body, error.status, error.headers);
    }
    logger.error('request failed', {
      error,
      method: c.req.method,
      path: c.req.path,
      appId: c.get('app')?.id,
    });
    return sendJson(c, { error: 'Internal server error' }, 500);
  };
}

/** Answers a route the API does not have with a JSON 404 naming it. */
export const answerNotFound: NotFoundHandler<HttpApiEnv> = (c) =>
  sendJson(c, { error: `Not found: ${c.req.method} ${c.req.path}` }, 404);
