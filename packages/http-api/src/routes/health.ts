import type { Handler } from 'hono';
import type { HttpApiEnv } from '../api-env.js';
import type { RealtimeBackend } from '../backend.js';
import { sendJson } from '../internal/respond.js';
import { createMetricsHandler, type MetricsAccess } from '../metrics-access.js';

const HEALTHY = { health: 'OK' } as const;
const READY = { ready: true } as const;
const NOT_READY = { ready: false, reason: 'draining' } as const;

/** Liveness (`/up`, `/pusher/health`): 200 for as long as the process answers. */
export const answerHealthy: Handler<HttpApiEnv> = (c) => sendJson(c, HEALTHY);

/**
 * Creates the readiness check, for load balancers and Kubernetes: 503 from the moment the server starts draining,
 * while the liveness check stays 200 until the process exits.
 */
export function answerReady(backend: RealtimeBackend): Handler<HttpApiEnv> {
  return (c) => (backend.ready?.() === false ? sendJson(c, NOT_READY, 503) : sendJson(c, READY));
}

/** Creates the `/metrics` route: the backend's metrics text as it is, behind a bearer token when one is set. */
export function answerMetrics(backend: RealtimeBackend, access: MetricsAccess = {}): Handler<HttpApiEnv> {
  const scrape = createMetricsHandler(backend, access);
  return async (c) => {
    const answer = await scrape(c.req.header('authorization'));
    return c.body(answer.body, answer.status === 401 ? 401 : 200, answer.headers);
  };
}
