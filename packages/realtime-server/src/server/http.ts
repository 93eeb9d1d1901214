// Every HTTP request that is not a WebSocket upgrade (the REST API): bridged to the fetch handler, after the fast
// path, and counted per app.

import type { FastHttpHandler, FetchHandler, HttpBridgeOptions } from '../http-bridge.js';
import { handleWithFetch } from '../http-bridge.js';
import type { HttpExchange } from '../transport/types.js';
import type { ServerContext } from './state.js';

const APP_IN_PATH = /\/apps\/([^/?]+)/;

const notFound: FetchHandler = () =>
  new Response('{"error":"Not found"}', { status: 404, headers: { 'content-type': 'application/json' } });

/** The handlers HTTP requests go to; replaced on reload. */
export interface HttpHandlers {
  readonly httpHandler?: FetchHandler | undefined;
  readonly httpFastPath?: FastHttpHandler | undefined;
}

/** The server's HTTP side: answers requests with the current handlers. */
export interface HttpRoute {
  handle(exchange: HttpExchange): void;
  /** Serves with new handlers from now on: a fetch handler given replaces the old one, a fast path key replaces it. */
  replace(next: HttpHandlers): void;
}

export function createHttpRoute(
  ctx: ServerContext,
  initial: HttpHandlers,
  limits: { readonly maxBodyBytes: number; readonly scheme: 'http' | 'https' },
): HttpRoute {
  let handler: FetchHandler = initial.httpHandler ?? notFound;
  let fastPath: FastHttpHandler | undefined = initial.httpFastPath;
  const { logger, events, metrics } = ctx;
  // Built once: the wrappers read the handlers current when a request arrives.
  const callHandler: FetchHandler = (request) => handler(request);
  const callFastPath: FastHttpHandler = (request) => (fastPath as FastHttpHandler)(request);
  const base = {
    handler: callHandler,
    maxBodyBytes: limits.maxBodyBytes,
    scheme: limits.scheme,
    onError: (error: unknown) => logger.error('HTTP handler failed', { error }),
    onComplete: ({ status, bytesIn, bytesOut, path, method }) => {
      const appId = APP_IN_PATH.exec(path)?.[1];
      const counts = metrics.forHttp(appId !== undefined && ctx.apps.byId.has(appId) ? appId : '');
      counts.calls.inc();
      counts.bytesIn.inc(bytesIn);
      counts.bytesOut.inc(bytesOut);
      if (events.has('httpApiEvent')) {
        events.emit('httpApiEvent', { appId, method, path, status }, ctx.reportListenerError);
      }
    },
  } satisfies HttpBridgeOptions;
  let bridge: HttpBridgeOptions = { ...base, fastPath: fastPath ? callFastPath : undefined };

  return {
    handle(exchange) {
      handleWithFetch(exchange, bridge);
    },
    replace(next) {
      if (next.httpHandler) handler = next.httpHandler;
      if ('httpFastPath' in next) fastPath = next.httpFastPath;
      bridge = { ...base, fastPath: fastPath ? callFastPath : undefined };
    },
  };
}
