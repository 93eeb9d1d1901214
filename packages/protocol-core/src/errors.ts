/** The closed set of local (non-wire) error codes raised by protocol-core. */
export type ProtocolCoreErrorCode = 'invalid_argument';

/** Raised only for programmer errors, such as a malformed argument to a generator; parsers return results instead. */
export class ProtocolCoreError extends Error {
  override readonly name = 'ProtocolCoreError';
  readonly code: ProtocolCoreErrorCode;

  constructor(code: ProtocolCoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Tells whether a value is a {@link ProtocolCoreError}. */
export function isProtocolCoreError(value: unknown): value is ProtocolCoreError {
  return value instanceof ProtocolCoreError;
}
