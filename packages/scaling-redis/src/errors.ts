/** The closed set of error codes raised by scaling-redis. */
export type ScalingRedisErrorCode = 'invalid_options' | 'unavailable';

/** Raised for bad options (a programmer error) and for cluster operations that need Redis while it is away. */
export class ScalingRedisError extends Error {
  override readonly name = 'ScalingRedisError';
  readonly code: ScalingRedisErrorCode;

  constructor(code: ScalingRedisErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Tells whether a value is a {@link ScalingRedisError}. */
export function isScalingRedisError(value: unknown): value is ScalingRedisError {
  return value instanceof ScalingRedisError;
}
