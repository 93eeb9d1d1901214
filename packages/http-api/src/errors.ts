/**
 * The closed set of reasons the HTTP API refuses a request. Each maps to one status of the Pusher REST reference
 * (https://pusher.com/docs/channels/library_auth_reference/rest-api/).
 */
export type HttpApiErrorCode =
  | 'invalid_body'
  | 'unauthorized'
  | 'app_disabled'
  | 'app_not_found'
  | 'route_not_found'
  | 'payload_too_large'
  | 'history_disabled'
  | 'rate_limited'
  | 'backend_failed';

/** The HTTP status each error code is answered with. */
export const HttpApiErrorStatus = {
  invalid_body: 400,
  unauthorized: 401,
  app_disabled: 403,
  app_not_found: 404,
  route_not_found: 404,
  payload_too_large: 413,
  history_disabled: 409,
  rate_limited: 429,
  backend_failed: 500,
} as const satisfies Record<HttpApiErrorCode, number>;

/** Details an error carries to its JSON body and response headers. */
export interface HttpApiErrorOptions {
  /** The body field that failed validation, named in the JSON body. */
  readonly field?: string | undefined;
  /** Response headers to send with the error, such as the rate-limit headers of a 429. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly cause?: unknown;
}

/** A refused request: raised inside route handlers and turned into a JSON response at the edge of the app. */
export class HttpApiError extends Error {
  override readonly name = 'HttpApiError';
  readonly code: HttpApiErrorCode;
  readonly field: string | undefined;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: HttpApiErrorCode, message: string, options: HttpApiErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.field = options.field;
    this.headers = options.headers ?? {};
  }

  /** The HTTP status this error is answered with. */
  get status(): (typeof HttpApiErrorStatus)[HttpApiErrorCode] {
    return HttpApiErrorStatus[this.code];
  }
}

/** Tells whether a value is an {@link HttpApiError}. */
export function isHttpApiError(value: unknown): value is HttpApiError {
  return value instanceof HttpApiError;
}
