/** The closed set of error codes raised by @herald/webhooks. */
export type WebhooksErrorCode = 'invalid_options' | 'invalid_config';

/** Raised for options that cannot work (a programmer error) and by the throwing config parsers. */
export class WebhooksError extends Error {
  override readonly name = 'WebhooksError';
  readonly code: WebhooksErrorCode;

  constructor(code: WebhooksErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Tells whether a value is a {@link WebhooksError}. */
export function isWebhooksError(value: unknown): value is WebhooksError {
  return value instanceof WebhooksError;
}
