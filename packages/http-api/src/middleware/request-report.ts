import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { HttpApiEnv } from '../api-env.js';
import type { Logger } from '../logger.js';

/** What the HTTP API reports about each request it answered, for application events and HTTP metrics. */
export interface HttpApiRequest {
  /** The app the request was for, when it named a known app. */
  readonly appId?: string | undefined;
  readonly method: string;
  /** The request path as received, prefix included. */
  readonly path: string;
  /** The matched route pattern, such as `/apps/:appId/events` (low cardinality, for metric labels). */
  readonly route: string;
  readonly status: number;
  /** Bytes of request body read. */
  readonly requestBytes: number;
  /** Bytes of response body, when known. */
  readonly responseBytes?: number | undefined;
  readonly durationMs: number;
}

/** Creates the outermost middleware, which tells `onRequest` about every answered request (errors and 404s too). */
export function reportRequests(
  onRequest: ((request: HttpApiRequest) => void) | undefined,
  logger: Logger,
): MiddlewareHandler<HttpApiEnv> {
  return async (c, next) => {
    if (onRequest === undefined) return next();
    const started = performance.now();
    await next();
    const length = c.res.headers.get('content-length');
    const report: HttpApiRequest = {
      appId: c.get('app')?.id,
      method: c.req.method,
      path: c.req.path,
      route: routePath(c, -1),
      status: c.res.status,
      requestBytes: c.get('body')?.byteLength ?? 0,
      responseBytes: length === null ? undefined : Number(length),
      durationMs: performance.now() - started,
    };
    try {
      onRequest(report);
    } catch (error) {
      // A failing observer must not turn an answered request into an error.
      logger.warn('onRequest callback failed', { error, path: report.path });
    }
  };
}
