/** Structured fields logged with a message: `appId`, `channel`, `status`, never secrets. */
export type LogFields = Readonly<Record<string, unknown>>;

/** The structured logger the HTTP API writes to (an app adapts pino to it: pino takes fields first). */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

const ignore = (): void => {};

/** A logger that drops everything: the default when none is given. */
export const silentLogger: Logger = { debug: ignore, info: ignore, warn: ignore, error: ignore };
