/** The closed set of error codes raised or reported by @herald/notifications. */
export type NotificationErrorCode =
  /** `via()` named a channel that was never registered. */
  | 'unknown_channel'
  /** A channel builder returned data that does not have the required shape. */
  | 'invalid_data'
  /** A notification has no builder for a channel it is sent through. */
  | 'missing_builder'
  /** A channel could not deliver (network, real-time server, webhook). */
  | 'send_failed'
  /** The store could not read or write. */
  | 'store_failed'
  /** Options given to a factory are unusable. */
  | 'invalid_options'
  /** The notification service answered a client's request with an error, or could not be reached. */
  | 'request_failed'
  /** Whether a recipient has a bell open could not be told (the real-time server refused or was not reached). */
  | 'presence_failed'
  /** A secret the store keeps is sealed (encrypted at rest) and no key was given to open it. */
  | 'key_required'
  /** A secret the store keeps is sealed with another key than the one given (or was altered). */
  | 'wrong_key';

/** The package's error: a code from a closed set, a message, and the cause when there is one. */
export class NotificationError extends Error {
  override readonly name = 'NotificationError';
  readonly code: NotificationErrorCode;
  /** The channel the error happened in, when it happened in one. */
  readonly channel: string | undefined;
  /** The HTTP status the service answered, for `request_failed` (undefined when it was not reached). */
  readonly status: number | undefined;
  /** The body the service answered, parsed as JSON when it was JSON, for `request_failed`. */
  readonly body: unknown;

  constructor(
    code: NotificationErrorCode,
    message: string,
    options: {
      cause?: unknown;
      channel?: string | undefined;
      status?: number | undefined;
      body?: unknown;
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.code = code;
    this.channel = options.channel;
    this.status = options.status;
    this.body = options.body;
  }
}

/** Tells whether a value is a {@link NotificationError}. */
export function isNotificationError(value: unknown): value is NotificationError {
  return value instanceof NotificationError;
}
