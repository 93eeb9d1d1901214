/** The closed set of error codes raised by @herald/teamchat-channel. */
export type TeamChatErrorCode =
  /** A channel's config is unusable (bad webhook URL, bad timeout, bad name…). */
  | 'invalid_config'
  /** The message failed validation before anything was sent. */
  | 'invalid_message'
  /** The route is not a `#channel` or `@user` destination. */
  | 'invalid_route'
  /** The notification has no `toTeamChat()` for a team-chat channel it is sent through. */
  | 'missing_builder'
  /** Rocket.Chat answered with a status other than 2xx. */
  | 'http_error'
  /** No TCP (or TLS) connection within `connect_timeout`. */
  | 'connect_timeout'
  /** The whole request took longer than `timeout`. */
  | 'timeout'
  /** The request failed on the way: refused connection, TLS verification, proxy… */
  | 'request_failed';

/** The package's base error: a code from a closed set, a message, and the cause when there is one. */
export class TeamChatError extends Error {
  override readonly name: string = 'TeamChatError';
  readonly code: TeamChatErrorCode;

  constructor(code: TeamChatErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}

/** What Rocket.Chat answered: the status, the body (parsed when JSON, else text) and the headers. */
export interface TeamChatResponse {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * A team-chat delivery that failed: the channel it went through and, when Rocket.Chat answered, its
 * response. The message never contains the webhook URL.
 */
export class CouldNotSendNotification extends TeamChatError {
  override readonly name = 'CouldNotSendNotification';
  /** The channel name the delivery went through (`teamchat`, `teamchat-alerts`…). */
  readonly channel: string;
  /** Rocket.Chat's answer, when there was one. */
  readonly response: TeamChatResponse | undefined;
  /** For a 429: how long Rocket.Chat asked to wait, in milliseconds, when it said. */
  readonly retryAfterMs: number | undefined;

  constructor(
    code: TeamChatErrorCode,
    message: string,
    options: {
      channel: string;
      response?: TeamChatResponse | undefined;
      retryAfterMs?: number | undefined;
      cause?: unknown;
    },
  ) {
    super(code, message, { cause: options.cause });
    this.channel = options.channel;
    this.response = options.response;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** Tells whether a value is a {@link TeamChatError} (including {@link CouldNotSendNotification}). */
export function isTeamChatError(value: unknown): value is TeamChatError {
  return value instanceof TeamChatError;
}

/** Tells whether a value is a {@link CouldNotSendNotification}. */
export function isCouldNotSendNotification(value: unknown): value is CouldNotSendNotification {
  return value instanceof CouldNotSendNotification;
}
