/** Every way `assist` can fail on purpose; a closed set so callers can switch on it. */
export type AssistErrorCode =
  | 'config_invalid'
  | 'skill_invalid'
  | 'template_failed'
  | 'state_invalid'
  | 'not_installed'
  | 'agent_unknown'
  | 'no_agents'
  | 'plugin_failed'
  | 'project_invalid';

/** The one error class of `@herald/assist`; `code` tells what went wrong, `cause` keeps the original. */
export class AssistError extends Error {
  override readonly name = 'AssistError';
  readonly code: AssistErrorCode;

  constructor(code: AssistErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Tells whether a value is an {@link AssistError}, optionally of one code. */
export function isAssistError(value: unknown, code?: AssistErrorCode): value is AssistError {
  return value instanceof AssistError && (code === undefined || value.code === code);
}

/** The outcome of an operation whose failure is expected and reported, not thrown. */
export type Result<T, E = AssistError> = { ok: true; value: T } | { ok: false; error: E };

/** Wraps a value as a successful {@link Result}. */
export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

/** Wraps an error as a failed {@link Result}. */
export function fail<E>(error: E): { ok: false; error: E } {
  return { ok: false, error };
}
