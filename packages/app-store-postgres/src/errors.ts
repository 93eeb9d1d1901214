/** The closed set of error codes raised by app-store-postgres. */
export type AppStorePostgresErrorCode =
  | 'invalid_options'
  | 'unavailable'
  | 'not_found'
  | 'conflict'
  | 'invalid_app'
  /** The store holds encrypted secrets and no key was given. */
  | 'key_required'
  /** A secret was encrypted with another key than the one given (or was altered): nothing is served from it. */
  | 'wrong_key';

/**
 * Raised for bad options (a programmer error), for reads and writes while PostgreSQL is unreachable, and for
 * writes refused: an unknown app id, a duplicate id or key, or a value a column does not accept; and for encrypted
 * secrets that the key given (or the lack of one) cannot open.
 */
export class AppStorePostgresError extends Error {
  override readonly name = 'AppStorePostgresError';
  readonly code: AppStorePostgresErrorCode;

  constructor(code: AppStorePostgresErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Tells whether a value is an {@link AppStorePostgresError}. */
export function isAppStorePostgresError(value: unknown): value is AppStorePostgresError {
  return value instanceof AppStorePostgresError;
}
