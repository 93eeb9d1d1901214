import type { Logger } from '../logger.js';

/** Wraps a handler so that a bug in it is logged instead of taking the process or the other sockets down. */
export function guard<A extends unknown[]>(
  logger: Logger,
  where: string,
  fn: (...args: A) => void,
): (...args: A) => void {
  return (...args: A) => {
    try {
      fn(...args);
    } catch (error) {
      logger.error(`unexpected error in ${where}`, { error });
    }
  };
}

/** Logs a failed cluster call; the caller then serves from this node's state. */
export function clusterFailed(logger: Logger, what: string): (error: unknown) => void {
  return (error: unknown) =>
    logger.warn(`cluster ${what} failed; serving from local state`, {
      scope: 'socket.server.cluster',
      error,
    });
}
