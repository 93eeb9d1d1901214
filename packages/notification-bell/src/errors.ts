/** What went wrong in the bell: a request the API refused or could not answer, or a live connection. */
export type BellErrorCode =
  | 'request_failed'
  | 'unauthenticated'
  | 'forbidden'
  | 'bad_response'
  | 'live_failed';

/** What the bell was doing when a request failed. */
export type BellOperation =
  | 'load'
  | 'markRead'
  | 'markAllRead'
  | 'delete'
  | 'archive'
  | 'snooze'
  | 'markSeen';

/** The bell's error: a closed `code`, a message fit to show the user, and the HTTP status when there was one. */
export class BellError extends Error {
  override readonly name = 'BellError';
  readonly code: BellErrorCode;
  readonly status: number | undefined;
  /** The request that failed, so the bell can say so in the page's language. */
  readonly operation: BellOperation | undefined;
  /** Why, in the server's words when it gave any. */
  readonly detail: string | undefined;

  constructor(
    code: BellErrorCode,
    message: string,
    options: { cause?: unknown; status?: number; operation?: BellOperation; detail?: string } = {},
  ) {
    super(message, { cause: options.cause });
    this.code = code;
    this.status = options.status;
    this.operation = options.operation;
    this.detail = options.detail;
  }
}

/** Tells a {@link BellError} apart from any other thrown value. */
export function isBellError(value: unknown): value is BellError {
  return value instanceof BellError;
}
