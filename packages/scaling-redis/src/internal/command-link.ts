import type { Logger } from '../logger.js';
import type { RedisServerOptions } from '../redis-options.js';
import { createRedisLink, type RedisLink } from './connection.js';

/** A command-only link (no subscriber) that connects on first use and logs its outages once each. */
export interface CommandLink {
  readonly link: RedisLink;
  /** Resolves once connected; connects again on the next call after a failed first connect (Redis not up yet). */
  connected(): Promise<void>;
  /** Closes once the pending connect settled (destroys the sockets if a graceful close fails). */
  close(): Promise<void>;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Makes a {@link CommandLink}; `what` names it in the logs ('webhook queue', 'history'). `eager` connects at once
 * rather than on first use.
 */
export function createCommandLink(
  options: RedisServerOptions,
  logger: Logger,
  { what, eager }: { readonly what: string; readonly eager: boolean },
): CommandLink {
  let reportedDown = false;
  const link = createRedisLink(
    options,
    {
      error: (error) => {
        if (!reportedDown) logger.warn(`${what}: redis error`, { error: error.message });
        reportedDown = true;
      },
      ready: () => {
        reportedDown = false;
        logger.info(`${what}: redis available again`, {});
      },
      reconnecting: () => {},
    },
    { subscriber: false },
  );
  let connecting: Promise<void> | undefined;
  const connected = (): Promise<void> => {
    connecting ??= link.connect().catch((error: unknown) => {
      connecting = undefined;
      logger.error(`${what}: no redis`, { error: messageOf(error) });
      throw error;
    });
    return connecting;
  };
  // Observed here so that a failed first connect is not an unhandled rejection; the next use reports it.
  if (eager) connected().catch(() => undefined);
  return {
    link,
    connected,
    async close() {
      await connecting?.catch(() => undefined);
      await link.close().catch(() => link.destroy());
    },
  };
}
