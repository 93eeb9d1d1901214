import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentNotificationLogger } from '@herald/notifications';
import { dropSchema, POSTGRES_URL, randomSchema } from '@herald/test-kit';
import { type ServerType, serve } from '@hono/node-server';
import { createNotificationCenter, type NotificationCenter } from '../src/center.js';
import { configFromEnv } from '../src/config.js';

/** A notification center listening on a random port, over a real HTTP server. */
export interface RunningCenter {
  readonly center: NotificationCenter;
  readonly base: string;
  stop(): Promise<void>;
}

/** The two stores a center can run on, for `describe.each`. */
export const CENTER_STORES = ['pglite', 'postgres'] as const;
export type CenterStore = (typeof CENTER_STORES)[number];

/**
 * The environment that puts a center's store on PGlite in a new temp folder or on PostgreSQL in a schema of its
 * own, and how to remove it (several centers in turn may share it: a restart keeps the data).
 */
export async function storeEnvFor(
  store: CenterStore,
): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> {
  if (store === 'pglite') {
    const dataDir = await mkdtemp(join(tmpdir(), 'herald-nc-store-'));
    return {
      env: { NOTIFICATION_PGLITE_DIR: dataDir },
      cleanup: () => rm(dataDir, { recursive: true, force: true }),
    };
  }
  const schema = randomSchema('herald_nc_test');
  return {
    env: { DATABASE_URL: POSTGRES_URL, NOTIFICATION_DATABASE_SCHEMA: schema },
    cleanup: () => dropSchema(schema),
  };
}

/**
 * Serves a notification center made from environment variables (the store's included), as its bin does, on `port`
 * (random when 0); `stop` closes the server and the center and leaves the store's data in place.
 */
export async function serveCenter(env: Record<string, string | undefined>, port = 0): Promise<RunningCenter> {
  const loaded = configFromEnv(env);
  if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
  const center = await createNotificationCenter(loaded.config, silentNotificationLogger);
  const server: ServerType = serve({ fetch: center.app.fetch, hostname: '127.0.0.1', port });
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    center,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      await new Promise((resolve) => server.close(resolve));
      await center.close();
    },
  };
}

/**
 * Starts the notification center from environment variables, as its bin does, on PGlite in a temp folder or
 * on PostgreSQL in a schema of its own; `stop` closes it and removes the folder or drops the schema.
 */
export async function startCenter(
  store: CenterStore,
  env: Record<string, string | undefined>,
): Promise<RunningCenter> {
  const { env: storeEnv, cleanup } = await storeEnvFor(store);
  const served = await serveCenter({ ...storeEnv, ...env });
  return {
    ...served,
    async stop() {
      await served.stop();
      await cleanup();
    },
  };
}
