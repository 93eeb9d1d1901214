import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMetricsHandler, type MetricsHandler, type RealtimeBackend } from '@herald/http-api';
import type { Logger } from '@herald/realtime-server';
import type { MetricsConfig } from './config-schema.js';

/** `/metrics` on a port of its own (`metrics.port`), bound to `metrics.host` (127.0.0.1 by default). */
export interface MetricsServer {
  /** The port it listens on (the one chosen when `metrics.port` is 0). */
  readonly port: number;
  /** Takes a re-read config's token (a restart); the port and host stay until the process restarts. */
  update(settings: MetricsConfig): void;
  close(): Promise<void>;
}

const JSON_TYPE = { 'Content-Type': 'application/json; charset=utf-8' };

/**
 * Starts the metrics port. Under `--workers`, every worker calls this with the same port and node:cluster shares
 * the one listening socket among them (port 0 included): a scrape is answered by one worker, as on the main port.
 */
export async function startMetricsServer(options: {
  readonly backend: RealtimeBackend;
  readonly settings: MetricsConfig;
  readonly logger: Logger;
}): Promise<MetricsServer> {
  const { backend, logger } = options;
  const handlerOf = (settings: MetricsConfig): MetricsHandler =>
    createMetricsHandler(backend, { token: settings.auth_token });
  let scrape = handlerOf(options.settings);
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      response
        .writeHead(404, JSON_TYPE)
        .end(JSON.stringify({ error: `Not found: ${request.method} ${path}` }));
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response
        .writeHead(405, { ...JSON_TYPE, Allow: 'GET, HEAD' })
        .end(JSON.stringify({ error: 'Method not allowed' }));
      return;
    }
    scrape(request.headers.authorization).then(
      (answer) =>
        response
          .writeHead(answer.status, answer.headers)
          .end(request.method === 'HEAD' ? undefined : answer.body),
      (error: unknown) => {
        logger.error('metrics scrape failed', { error });
        response.writeHead(500, JSON_TYPE).end(JSON.stringify({ error: 'Internal server error' }));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: options.settings.host, port: options.settings.port ?? 0 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    update(settings) {
      scrape = handlerOf(settings);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
