import { accessSync, constants } from 'node:fs';
import type * as Uws from '@trufflesuite/uws-js-unofficial';
import { RealtimeServerError } from '../errors.js';
import {
  type HttpExchange,
  type ResponseHeaders,
  refusalBody,
  type Transport,
  type TransportOptions,
  type TransportSocket,
  UpgradeRefusal,
  type UpgradeRequest,
} from './types.js';

type UwsModule = typeof Uws;

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  204: 'No Content',
  413: 'Payload Too Large',
  429: 'Too Many Requests',
};

function statusLine(status: number): string {
  return `${status} ${STATUS_TEXT[status] ?? ''}`.trimEnd();
}

function writeHeaders(res: Uws.HttpResponse, headers: ResponseHeaders): void {
  if (headers instanceof Headers) {
    headers.forEach((value, key) => {
      // uWS writes its own Content-Length.
      if (key !== 'content-length') res.writeHeader(key, value);
    });
    return;
  }
  for (const key in headers) {
    if (key.toLowerCase() !== 'content-length') res.writeHeader(key, headers[key] as string);
  }
}

/** Wraps a uWS request/response pair; every header is read now, since uWS frees the request after this call. */
function toExchange(res: Uws.HttpResponse, req: Uws.HttpRequest): HttpExchange {
  const headers: Record<string, string> = {};
  req.forEach((key, value) => {
    const existing = headers[key];
    headers[key] = existing === undefined ? value : `${existing}, ${value}`;
  });
  return {
    method: req.getCaseSensitiveMethod().toUpperCase(),
    url: req.getUrl(),
    query: req.getQuery() ?? '',
    headers,
    remoteAddress: () => Buffer.from(res.getRemoteAddressAsText()).toString(),
    onAborted: (listener) => {
      res.onAborted(listener);
    },
    onData: (listener) => {
      res.onData((chunk, last) => listener(new Uint8Array(chunk), last));
    },
    respond: (status, responseHeaders, body, close) => {
      res.cork(() => {
        res.writeStatus(statusLine(status));
        writeHeaders(res, responseHeaders);
        res.end(body, close);
      });
    },
    stream: (status, responseHeaders) => {
      res.cork(() => {
        res.writeStatus(statusLine(status));
        writeHeaders(res, responseHeaders);
        // An empty write sends the head now, chunked, so that the client sees the stream open.
        res.write('');
      });
      return {
        write: (chunk) => {
          res.cork(() => res.write(chunk));
        },
        end: () => {
          res.cork(() => res.end());
        },
      };
    },
  };
}

/** Answers a refused upgrade over HTTP; the connection closes after it (no socket ever opens). */
function refuse(res: Uws.HttpResponse, refusal: UpgradeRefusal): void {
  res.cork(() => {
    res.writeStatus(statusLine(refusal.status));
    writeHeaders(res, { ...refusal.headers, 'content-type': 'application/json' });
    res.end(refusalBody(refusal), true);
  });
}

/**
 * An upgrade request as the core reads it. The peer's address and X-Forwarded-For are read only when per-address
 * limits ask (the request is valid for the upgrade call, which the core answers in). A class, so those two are
 * getters of its prototype: an object literal with getters built two closures and an accessor map per upgrade,
 * about 0.7 KiB of garbage per connection (V8's sampling heap profiler, 10 000 connects).
 */
class UwsUpgrade implements UpgradeRequest {
  readonly key: string;
  readonly origin: string;
  readonly query: string;
  readonly #res: Uws.HttpResponse;
  readonly #req: Uws.HttpRequest;

  constructor(res: Uws.HttpResponse, req: Uws.HttpRequest) {
    this.key = req.getParameter(0) ?? '';
    this.origin = req.getHeader('origin');
    this.query = req.getQuery() ?? '';
    this.#res = res;
    this.#req = req;
  }

  get remoteAddress(): string {
    return Buffer.from(this.#res.getRemoteAddressAsText()).toString();
  }

  // Every X-Forwarded-For line, joined as node:http joins them (getHeader would give only the first).
  get forwardedFor(): string {
    let joined = '';
    this.#req.forEach((name, value) => {
      if (name === 'x-forwarded-for') joined = joined === '' ? value : `${joined}, ${value}`;
    });
    return joined;
  }
}

/**
 * The transport on a native uWebSockets.js build: native topic fan-out, and its sockets handed to the core as they
 * are (they already have the methods of {@link TransportSocket}).
 */
export function createUwsTransport<Data>(uws: UwsModule, options: TransportOptions<Data>): Transport {
  const { handlers, tls } = options;
  let app: Uws.TemplatedApp;
  if (tls) {
    for (const file of [tls.certFile, tls.keyFile]) {
      try {
        accessSync(file, constants.R_OK);
      } catch (cause) {
        throw new RealtimeServerError('tls_files_unreadable', `Cannot read TLS file ${file}`, { cause });
      }
    }
    app = uws.SSLApp({
      cert_file_name: tls.certFile,
      key_file_name: tls.keyFile,
      ...(tls.passphrase ? { passphrase: tls.passphrase } : {}),
    });
  } else {
    app = uws.App();
  }

  app.ws<Data>(`${options.upgradePrefix}:key`, {
    maxPayloadLength: options.maxPayloadLength,
    idleTimeout: 0,
    sendPingsAutomatically: false,
    maxBackpressure: options.maxBackpressure,
    upgrade: (res, req, context) => {
      const data = handlers.upgrade(new UwsUpgrade(res, req));
      if (data instanceof UpgradeRefusal) {
        refuse(res, data);
        return;
      }
      res.upgrade(
        data,
        req.getHeader('sec-websocket-key'),
        req.getHeader('sec-websocket-protocol'),
        req.getHeader('sec-websocket-extensions'),
        context,
      );
    },
    // uWS's WebSocket has every member of TransportSocket with compatible signatures.
    open: (ws) => handlers.open(ws as TransportSocket<Data>),
    message: (ws, message) => handlers.message(ws as TransportSocket<Data>, message),
    ping: (ws) => handlers.activity(ws as TransportSocket<Data>),
    pong: (ws) => handlers.activity(ws as TransportSocket<Data>),
    close: (ws, code) => handlers.close(ws as TransportSocket<Data>, code),
  });
  app.any('/*', (res, req) => handlers.http(toExchange(res, req)));

  let listenSocket: Uws.us_listen_socket | undefined;
  return {
    name: 'uws',
    listen(host, port) {
      return new Promise<number>((resolve, reject) => {
        app.listen(host, port, (socket) => {
          if (!socket) {
            reject(
              new RealtimeServerError(
                'listen_failed',
                `Cannot listen on ${host}:${port} (is the port in use?)`,
              ),
            );
            return;
          }
          listenSocket = socket;
          // uWS answers the port of a listen socket as of any socket (its types tell the two apart in name only).
          resolve(uws.us_socket_local_port(socket));
        });
      });
    },
    stopListening() {
      if (listenSocket) uws.us_listen_socket_close(listenSocket);
      listenSocket = undefined;
    },
    publish(topic, message) {
      app.publish(topic, message, false, false);
    },
    numSubscribers(topic) {
      return app.numSubscribers(topic);
    },
  };
}

/** Whether a loaded addon has the uWS functions this transport calls. */
function isUwsModule(module: Record<string, unknown>): module is Record<string, unknown> & UwsModule {
  return ['App', 'SSLApp', 'us_listen_socket_close', 'us_socket_local_port'].every(
    (name) => typeof module[name] === 'function',
  );
}

/** The uWS transport on an addon the loader found (its exports untyped until here, where uWS's types live). */
export function createUwsTransportFrom<Data>(
  module: Record<string, unknown>,
  options: TransportOptions<Data>,
): Transport {
  if (!isUwsModule(module)) {
    throw new RealtimeServerError('transport_unavailable', 'The loaded module is not a uWebSockets.js build');
  }
  return createUwsTransport(module, options);
}
