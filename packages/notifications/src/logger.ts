import { type Logger, silentLogger } from '@herald/protocol-core';

/** The logger the package writes to: Herald's logger port (`debug|info|warn|error(message, fields)`). */
export type NotificationLogger = Logger;

/** A logger that discards everything, used when none is given. */
export const silentNotificationLogger: NotificationLogger = silentLogger;
