import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { LogFields, Logger } from '@herald/realtime-server';
import pino from 'pino';

/**
 * The named log scopes. A message's scope is its `scope` field; a scope is on when its own switch or its nearest
 * parent's switch is on (`socket.connection.ping` follows `socket.connection` unless set itself).
 */
export const DEFAULT_SCOPES: Readonly<Record<string, boolean>> = {
  'command.server': true,
  'command.server.start': true,
  'socket.server': true,
  'socket.connection': false,
  'socket.channel': false,
  'socket.controller': false,
  'socket.handler': false,
  'http.api': true,
};

/** Options of the app's logger. */
export interface LoggerOptions {
  readonly enabled: boolean;
  readonly debug: boolean;
  /** Pretty lines on a terminal, JSON otherwise. */
  readonly pretty: boolean;
  /** Per-scope switches from `logging.scopes`, over {@link DEFAULT_SCOPES}. */
  readonly scopes?: Readonly<Record<string, boolean>>;
  /** Also write JSON lines to `{logPath}/{logFile}.log`. */
  readonly logFile?: string | undefined;
  readonly logPath?: string | undefined;
}

/** Field names whose values never reach a log line. */
const REDACTED = [
  'secret',
  'password',
  'auth',
  'authorization',
  'auth_signature',
  'token',
  '*.secret',
  '*.password',
];

/** Tells whether a scope is switched on, walking up its dotted parents. */
export function isScopeEnabled(
  scope: string,
  switches: Readonly<Record<string, boolean>>,
  debug: boolean,
): boolean {
  let name = scope;
  while (name) {
    const value = switches[name];
    if (value !== undefined) return value || debug;
    const dot = name.lastIndexOf('.');
    name = dot > 0 ? name.slice(0, dot) : '';
  }
  return true;
}

/** Creates the pino logger the app writes to, adapted to the packages' `Logger` port and filtered by scope. */
export function createLogger(options: LoggerOptions): { logger: Logger; flush: () => void } {
  const streamLevel = options.debug ? 'debug' : 'info';
  const level = options.enabled ? streamLevel : 'silent';
  const switches = { ...DEFAULT_SCOPES, ...options.scopes };
  const streams: pino.StreamEntry[] = [
    {
      level: streamLevel,
      stream: options.pretty
        ? pino.transport({ target: 'pino-pretty', options: { colorize: true } })
        : pino.destination({ dest: 1, sync: false }),
    },
  ];
  if (options.logFile || options.logPath) {
    const dir = options.logPath ?? 'logs';
    mkdirSync(dir, { recursive: true });
    streams.push({
      level: streamLevel,
      stream: pino.destination({ dest: join(dir, `${options.logFile ?? 'realtime'}.log`), sync: false }),
    });
  }
  const base = pino(
    { level, base: undefined, redact: { paths: REDACTED, censor: '[redacted]' } },
    pino.multistream(streams),
  );
  const allowed = new Map<string, boolean>();
  const on = (fields: LogFields | undefined) => {
    const scope = typeof fields?.scope === 'string' ? fields.scope : undefined;
    if (scope === undefined) return true;
    let value = allowed.get(scope);
    if (value === undefined) {
      value = isScopeEnabled(scope, switches, options.debug);
      allowed.set(scope, value);
    }
    return value;
  };
  const logger: Logger = {
    debug: (message, fields) => {
      if (on(fields)) base.debug(fields ?? {}, message);
    },
    info: (message, fields) => {
      if (on(fields)) base.info(fields ?? {}, message);
    },
    warn: (message, fields) => {
      if (on(fields)) base.warn(fields ?? {}, message);
    },
    error: (message, fields) => base.error(fields ?? {}, message),
  };
  return { logger, flush: () => base.flush() };
}

/**
 * A logger that stamps every message with a scope. Fields that name their own scope pass as they are: no copy
 * is made for a message its scope then filters out (the per-connection debug lines, off by default).
 */
export function scoped(logger: Logger, scope: string): Logger {
  const stamp = (fields: LogFields | undefined): LogFields =>
    fields?.scope === undefined ? { scope, ...fields } : fields;
  return {
    debug: (message, fields) => logger.debug(message, stamp(fields)),
    info: (message, fields) => logger.info(message, stamp(fields)),
    warn: (message, fields) => logger.warn(message, stamp(fields)),
    error: (message, fields) => logger.error(message, stamp(fields)),
  };
}
