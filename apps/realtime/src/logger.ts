import type { Logger } from '@herald/realtime-server';
import pino from 'pino';

/** Options of the app's logger. */
export interface LoggerOptions {
  readonly enabled: boolean;
  readonly debug: boolean;
  /** Pretty lines on a terminal, JSON otherwise. */
  readonly pretty: boolean;
}

/** Creates the pino logger the app writes to, adapted to the packages' `Logger` port. */
export function createLogger(options: LoggerOptions): { logger: Logger; flush: () => void } {
  const level = !options.enabled ? 'silent' : options.debug ? 'debug' : 'info';
  const base = options.pretty
    ? pino({ level, base: undefined }, pino.transport({ target: 'pino-pretty', options: { colorize: true } }))
    : pino({ level, base: undefined });
  const logger: Logger = {
    debug: (message, fields) => base.debug(fields ?? {}, message),
    info: (message, fields) => base.info(fields ?? {}, message),
    warn: (message, fields) => base.warn(fields ?? {}, message),
    error: (message, fields) => base.error(fields ?? {}, message),
  };
  return { logger, flush: () => base.flush() };
}
