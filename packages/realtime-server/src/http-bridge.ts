import { createLightRequest } from './light-request.js';
import type { HttpBodyWriter, HttpExchange, ResponseHeaders } from './transport/types.js';

/** What the server knows of the connection a request came over, handed to a fetch handler beside the request. */
export interface HttpConnection {
  /**
   * The client's address: the peer's, or, when the peer is one of the server's `trustedProxies`, the
   * `X-Forwarded-For` entry they vouch for (as the per-address limits of upgrades read it). Undefined when the
   * transport cannot tell; read it before the answer is given.
   */
  readonly clientAddress: string | undefined;
}

/**
 * A fetch-style request handler, such as a hono app's `fetch` (which sees the connection as its `env`, `c.env`).
 */
export type FetchHandler = (request: Request, connection: HttpConnection) => Response | Promise<Response>;

/** A request as the bridge holds it before any Request object exists. */
export interface RawHttpRequest {
  readonly method: string;
  /** The path as received, without the query string. */
  readonly path: string;
  /** The query string without `?`. */
  readonly query: string;
  /** Header values by lower-case name (repeated headers joined with `, `). */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

/** An answer given from raw parts. */
export interface RawHttpResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Answers the hottest requests from raw parts, before any Request is built (such as `createFastTrigger` of
 * @herald/http-api); `undefined` hands the request to the fetch handler.
 */
export type FastHttpHandler = (
  request: RawHttpRequest,
) => RawHttpResponse | Promise<RawHttpResponse> | undefined;

/** Options of the bridge between a transport's HTTP requests and a fetch handler. */
export interface HttpBridgeOptions {
  readonly handler: FetchHandler;
  /** Tried first; answers what it can without building a Request. */
  readonly fastPath?: FastHttpHandler | undefined;
  /** Bodies larger than this are refused with 413 without reading further. */
  readonly maxBodyBytes: number;
  /** `http` or `https`, for the request URL the handler sees. */
  readonly scheme: 'http' | 'https';
  /** Tells a request's client address from its peer's address and its `X-Forwarded-For` header (may be ''). */
  readonly clientAddress?: ((peer: string, forwardedFor: string) => string | undefined) | undefined;
  /** Called once per answered request with the sizes, for metrics. */
  readonly onComplete?: (info: {
    status: number;
    bytesIn: number;
    bytesOut: number;
    path: string;
    method: string;
  }) => void;
  readonly onError?: (error: unknown) => void;
}

/** The global symbol under which a light response carries its body text (see @herald/http-api). */
const RESPONSE_BODY = Symbol.for('herald.http.body');

/** What a response of a handler that knows the bridge carries: its body text under the global symbol. */
interface HandedBody {
  readonly [RESPONSE_BODY]?: unknown;
}

const BODYLESS = new Set(['GET', 'HEAD', 'OPTIONS']);
const EMPTY = new Uint8Array(0);
const JSON_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'application/json' };
const TOO_LARGE = JSON.stringify({ error: 'Request body is larger than the allowed maximum' });
const SERVER_ERROR = '{"error":"Internal server error"}';

/** Writes a streamed body (server-sent events) as it comes, until it ends or the client goes. */
async function pipeStream(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  writer: HttpBodyWriter,
  gone: () => boolean,
): Promise<void> {
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (gone()) return;
      if (done) break;
      writer.write(decoder.decode(value, { stream: true }));
    }
  } catch {
    // The handler's stream failed after the head went out: all that is left to do is end the answer.
  }
  if (!gone()) writer.end();
}

/**
 * Answers a transport's HTTP request with a fetch handler (after an optional fast path). The body is read only up
 * to the limit.
 */
export function handleWithFetch(exchange: HttpExchange, options: HttpBridgeOptions): void {
  let aborted = false;
  /** Set while a streamed body is being written: stops reading it when the client goes. */
  let stopStream: (() => void) | undefined;
  exchange.onAborted(() => {
    aborted = true;
    stopStream?.();
  });
  const { method, url, query, headers } = exchange;

  const finish = (
    status: number,
    responseHeaders: ResponseHeaders,
    body: Uint8Array | string,
    bytesIn: number,
  ) => {
    if (aborted) return;
    exchange.respond(status, responseHeaders, body);
    options.onComplete?.({
      status,
      bytesIn,
      bytesOut: typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength,
      path: url,
      method,
    });
  };

  const failed = (error: unknown) => {
    options.onError?.(error);
    finish(500, JSON_HEADERS, SERVER_ERROR, 0);
  };

  const tooLarge = (bytesIn: number) => {
    if (aborted) return;
    exchange.respond(413, JSON_HEADERS, TOO_LARGE, true);
    aborted = true;
    options.onComplete?.({ status: 413, bytesIn, bytesOut: TOO_LARGE.length, path: url, method });
  };

  const viaFetch = (body: Uint8Array | undefined) => {
    const fullUrl = `${options.scheme}://${headers.host ?? 'localhost'}${url}${query ? `?${query}` : ''}`;
    const request = createLightRequest(method, fullUrl, new Headers(headers), body);
    // Worked out only when a handler asks (the REST API never does), and never once the client went.
    const connection: HttpConnection = {
      get clientAddress() {
        const { clientAddress } = options;
        if (aborted || !clientAddress || !exchange.remoteAddress) return undefined;
        return clientAddress(exchange.remoteAddress(), headers['x-forwarded-for'] ?? '');
      },
    };
    Promise.resolve()
      .then(() => options.handler(request, connection))
      .then(async (response) => {
        // A handler that knows the bridge (such as @herald/http-api) hands its body text over under this global
        // symbol, skipping undici's body streams; otherwise text() is the cheapest way out of a Response, and
        // binary bodies keep their bytes.
        const handed = (response as Response & HandedBody)[RESPONSE_BODY];
        if (typeof handed === 'string') {
          finish(response.status, response.headers, handed, body?.length ?? 0);
          return;
        }
        const type = response.headers.get('content-type') ?? '';
        if (response.body && exchange.stream && type.startsWith('text/event-stream')) {
          if (aborted) {
            await response.body.cancel();
            return;
          }
          const reader = response.body.getReader();
          stopStream = () => void reader.cancel().catch(() => undefined);
          const writer = exchange.stream(response.status, response.headers);
          await pipeStream(reader, writer, () => aborted);
          options.onComplete?.({ status: response.status, bytesIn: 0, bytesOut: 0, path: url, method });
          return;
        }
        const textual = type.startsWith('text/') || type.includes('json');
        const out =
          response.body === null
            ? ''
            : textual
              ? await response.text()
              : new Uint8Array(await response.arrayBuffer());
        finish(response.status, response.headers, out, body?.length ?? 0);
      })
      .catch(failed);
  };

  const dispatch = (body: Uint8Array | undefined) => {
    if (!options.fastPath) {
      viaFetch(body);
      return;
    }
    let answer: ReturnType<FastHttpHandler>;
    try {
      answer = options.fastPath({ method, path: url, query, headers, body: body ?? EMPTY });
    } catch (error) {
      failed(error);
      return;
    }
    if (answer === undefined) viaFetch(body);
    else if (answer instanceof Promise) {
      answer.then((done) => finish(done.status, done.headers, done.body, body?.length ?? 0), failed);
    } else finish(answer.status, answer.headers, answer.body, body?.length ?? 0);
  };

  const declared = headers['content-length'];
  const chunked = headers['transfer-encoding'] !== undefined;
  if (BODYLESS.has(method) && !chunked && (declared === undefined || declared === '0')) {
    dispatch(undefined);
    return;
  }
  if (declared !== undefined && Number(declared) > options.maxBodyBytes) {
    tooLarge(0);
    return;
  }
  if (!chunked && (declared === undefined || declared === '0')) {
    dispatch(undefined);
    return;
  }
  const chunks: Buffer[] = [];
  let received = 0;
  exchange.onData((chunk, isLast) => {
    if (aborted) return;
    received += chunk.byteLength;
    if (received > options.maxBodyBytes) {
      tooLarge(received);
      return;
    }
    // The transport may reuse the chunk's memory after this callback returns (uWS does): copy it.
    if (chunk.byteLength > 0) chunks.push(Buffer.from(chunk));
    if (isLast) dispatch(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received));
  });
}
