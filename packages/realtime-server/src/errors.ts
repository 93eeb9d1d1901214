/** The closed set of local error codes raised by the real-time server. */
export type RealtimeServerErrorCode =
  | 'listen_failed'
  | 'invalid_options'
  | 'tls_files_unreadable'
  | 'not_listening'
  | 'transport_unavailable';

/** A local failure of the server (not a wire error, which travels as a Pusher code on the socket). */
export class RealtimeServerError extends Error {
  override readonly name = 'RealtimeServerError';
  readonly code: RealtimeServerErrorCode;

  constructor(code: RealtimeServerErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Tells whether a value is a {@link RealtimeServerError}. */
export function isRealtimeServerError(value: unknown): value is RealtimeServerError {
  return value instanceof RealtimeServerError;
}
