// The logger port every Herald library takes: packages log through it, apps decide what sits behind it.

/** Structured log fields: ids and counts, never secrets. */
export type LogFields = Readonly<Record<string, unknown>>;

/** A structured logger: pino (through a small adapter) or anything with these four methods. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

const ignore = (): void => {};

/** A logger that drops everything: the default of every library. */
export const silentLogger: Logger = { debug: ignore, info: ignore, warn: ignore, error: ignore };
