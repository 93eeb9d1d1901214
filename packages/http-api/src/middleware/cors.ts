import { isOriginAllowed } from '@herald/protocol-core';
import type { MiddlewareHandler } from 'hono';
import type { HttpApiEnv } from '../api-env.js';

/**
 * CORS per the app's allowed origins: answers preflights, and marks allowed origins for the response. Headers go
 * into the context for sendJson rather than onto `c.res`: touching `c.res` before the handler answers makes hono
 * rebuild the response, a cost on every call.
 */
export const applyCors: MiddlewareHandler<HttpApiEnv> = async (c, next) => {
  const origin = c.req.header('origin');
  const allowed = origin !== undefined && isOriginAllowed(origin, c.get('app').allowedOrigins);
  if (c.req.method === 'OPTIONS') {
    const headers = new Headers({ Vary: 'Origin' });
    if (allowed) {
      headers.set('Access-Control-Allow-Origin', origin);
      headers.set('Access-Control-Allow-Methods', 'GET,POST,OPTIONS');
      headers.set('Access-Control-Max-Age', '86400');
      const requested = c.req.header('access-control-request-headers');
      if (requested) {
        headers.set('Access-Control-Allow-Headers', requested);
        headers.append('Vary', 'Access-Control-Request-Headers');
      }
    }
    return new Response(null, { status: 204, headers });
  }
  if (allowed) c.set('responseHeaders', { 'Access-Control-Allow-Origin': origin, Vary: 'Origin' });
  return next();
};
