import { randomBytes } from 'node:crypto';
import { ScalingRedisError } from './errors.js';
import { createRedisLink } from './internal/connection.js';
import { encodeWireMessage } from './internal/wire.js';
import type { RedisServerOptions } from './redis-options.js';

/** Where to publish a restart: the same Redis and channel as the cluster's nodes. */
export interface PublishRestartOptions extends RedisServerOptions {
  /** The broadcast channel of the cluster (`scaling.channel`); 'herald:broadcast' by default. */
  readonly channel?: string | undefined;
}

/**
 * Asks every node of the cluster to close its sockets with 4200 and start fresh (`realtime restart_server`).
 * Resolves with the number of subscribers the message reached (each node holds one subscription).
 * @throws {ScalingRedisError} `unavailable` when Redis cannot be reached.
 * @example
 * ```ts
 * const reached = await publishRestart({ url: 'redis://127.0.0.1:6379' });
 * ```
 */
export async function publishRestart(options: PublishRestartOptions = {}): Promise<number> {
  const errors: Error[] = [];
  const link = createRedisLink(
    options,
    { error: (error) => errors.push(error), ready: () => {}, reconnecting: () => {} },
    { subscriber: false },
  );
  // A sender id no node has, so that every node (none ignores its own messages here) acts on it.
  const sender = `restart:${randomBytes(6).toString('hex')}`;
  try {
    await link.connect();
    const reached = await link.publish(
      options.channel ?? 'herald:broadcast',
      encodeWireMessage(sender, { type: 'restart' }),
    );
    return Number(reached);
  } catch (error) {
    throw new ScalingRedisError('unavailable', 'Could not publish the restart through Redis', {
      cause: errors[0] ?? error,
    });
  } finally {
    await link.close().catch(() => link.destroy());
  }
}
