// Every HTTP request that is not a WebSocket upgrade (the REST API): bridged to the fetch handler, after the fast
// path, and counted per app.

import type { FastHttpHandler, FetchHandler, HttpBridgeOptions } from '../http-bridge.js';
import { handleWithFetch } from '../http-bridge.js';
import type { HttpExchange } from '../transport/types.js';
import type { ServerContext } from './state.js';

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
  limits: { readonly maxBodyBytes: number; readonly scheme: 'http' | 'https'; readonly path: string },
): HttpRoute {
  let handler: FetchHandler = initial.httpHandler ?? notFound;
  let fastPath: FastHttpHandler | undefined = initial.httpFastPath;
  const { logger, events, metrics } = ctx;
  // The REST API's routes only (`{path}/apps/{id}/…`): a host's other routes that name an app, such as an operator
  // console's `/console/api/apps/{id}/usage`, are not the app's API calls.
  const restPrefix = `${limits.path}/apps/`;
  const appOf = (path: string) => {
    if (!path.startsWith(restPrefix)) return undefined;
    const end = path.indexOf('/', restPrefix.length);
    return path.slice(restPrefix.length, end < 0 ? undefined : end);
  };
  // Built once: the wrappers read the handlers current when a request arrives.
  const callHandler: FetchHandler = (request, connection) => handler(request, connection);
  const callFastPath: FastHttpHandler = (request) => (fastPath as FastHttpHandler)(request);
  const base = {
    handler: callHandler,
    maxBodyBytes: limits.maxBodyBytes,
    scheme: limits.scheme,
    clientAddress: (peer, forwardedFor) => ctx.addressLimits.clientOf(peer, forwardedFor),
    onError: (error: unknown) => logger.error('HTTP handler failed', { error }),
    onComplete: ({ status, bytesIn, bytesOut, path, method }) => {
      const appId = appOf(path);
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
