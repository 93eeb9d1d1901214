/** The logging calls the package makes; a pino logger fits, and the default says nothing. */
export interface NotificationLogger {
  debug(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** A logger that discards everything, used when none is given. */
export const silentNotificationLogger: NotificationLogger = {
  debug() {},
  warn() {},
  error() {},
};
