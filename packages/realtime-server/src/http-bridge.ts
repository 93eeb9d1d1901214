import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import { createLightRequest } from './light-request.js';

/** A fetch-style request handler, such as a hono app's `fetch`. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** Options of the bridge between uWebSockets.js and a fetch handler. */
export interface HttpBridgeOptions {
  readonly handler: FetchHandler;
  /** Bodies larger than this are refused with 413 without reading further. */
  readonly maxBodyBytes: number;
  /** `http` or `https`, for the request URL the handler sees. */
  readonly scheme: 'http' | 'https';
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

const BODYLESS = new Set(['GET', 'HEAD', 'OPTIONS']);
const STATUS_TEXT: Record<number, string> = { 200: 'OK', 204: 'No Content', 413: 'Payload Too Large' };

function statusLine(status: number): string {
  return `${status} ${STATUS_TEXT[status] ?? ''}`.trimEnd();
}

const TOO_LARGE = JSON.stringify({ error: 'Request body is larger than the allowed maximum' });

/**
 * Answers a uWebSockets.js request with a fetch handler. Headers are read synchronously (uWS forbids touching the
 * request after the first await); the body is read only up to the limit.
 */
export function handleWithFetch(res: HttpResponse, req: HttpRequest, options: HttpBridgeOptions): void {
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  const method = req.getCaseSensitiveMethod().toUpperCase();
  const url = req.getUrl();
  const query = req.getQuery();
  const headers = new Headers();
  req.forEach((key, value) => {
    headers.append(key, value);
  });
  const host = headers.get('host') ?? 'localhost';
  const fullUrl = `${options.scheme}://${host}${url}${query ? `?${query}` : ''}`;

  const finish = (
    status: number,
    responseHeaders: Headers | undefined,
    body: Uint8Array | string,
    bytesIn: number,
  ) => {
    if (aborted) return;
    res.cork(() => {
      res.writeStatus(statusLine(status));
      responseHeaders?.forEach((value, key) => {
        if (key !== 'content-length') res.writeHeader(key, value);
      });
      res.end(body);
    });
    options.onComplete?.({
      status,
      bytesIn,
      bytesOut: typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength,
      path: url,
      method,
    });
  };

  const tooLarge = (bytesIn: number) => {
    const responseHeaders = new Headers({ 'content-type': 'application/json', connection: 'close' });
    if (aborted) return;
    res.cork(() => {
      res.writeStatus(statusLine(413));
      responseHeaders.forEach((value, key) => {
        res.writeHeader(key, value);
      });
      res.end(TOO_LARGE, true);
    });
    aborted = true;
    options.onComplete?.({ status: 413, bytesIn, bytesOut: TOO_LARGE.length, path: url, method });
  };

  const dispatch = (body: Uint8Array | undefined) => {
    const request = createLightRequest(method, fullUrl, headers, body);
    Promise.resolve()
      .then(() => options.handler(request))
      .then(async (response) => {
        // A handler that knows the bridge (such as @herald/http-api) hands its body text over under this global
        // symbol, skipping undici's body streams; otherwise text() is the cheapest way out of a Response, and
        // binary bodies keep their bytes.
        const handed = (response as unknown as Record<symbol, unknown>)[RESPONSE_BODY];
        if (typeof handed === 'string') {
          finish(response.status, response.headers, handed, body?.length ?? 0);
          return;
        }
        const type = response.headers.get('content-type') ?? '';
        const textual = type.startsWith('text/') || type.includes('json');
        const out =
          response.body === null
            ? ''
            : textual
              ? await response.text()
              : new Uint8Array(await response.arrayBuffer());
        finish(response.status, response.headers, out, body?.length ?? 0);
      })
      .catch((error: unknown) => {
        options.onError?.(error);
        finish(
          500,
          new Headers({ 'content-type': 'application/json' }),
          '{"error":"Internal server error"}',
          0,
        );
      });
  };

  const declared = headers.get('content-length');
  const chunked = headers.get('transfer-encoding') !== null;
  if (BODYLESS.has(method) && !chunked && (declared === null || declared === '0')) {
    dispatch(undefined);
    return;
  }
  if (declared !== null && Number(declared) > options.maxBodyBytes) {
    tooLarge(0);
    return;
  }
  if (!chunked && (declared === null || declared === '0')) {
    dispatch(undefined);
    return;
  }
  const chunks: Buffer[] = [];
  let received = 0;
  res.onData((chunk, isLast) => {
    if (aborted) return;
    received += chunk.byteLength;
    if (received > options.maxBodyBytes) {
      tooLarge(received);
      return;
    }
    // uWS reuses the chunk's memory after this callback returns: copy it.
    chunks.push(Buffer.from(chunk.slice(0)));
    if (isLast) dispatch(Buffer.concat(chunks, received));
  });
}
