import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropSchema, POSTGRES_URL, randomSchema } from '@herald/test-kit';
import {
  createNotificationStore,
  type NotificationStore,
  type NotificationStoreOptions,
} from '../src/index.js';

/** A store opened for one test file, and how to remove everything it created. */
export interface TestStore {
  store: NotificationStore;
  readonly options: NotificationStoreOptions;
  /** Closes the store and opens the same database again without running migrations. */
  reopen(): Promise<NotificationStore>;
  dispose(): Promise<void>;
}

/** Opens a store and wraps it so it can be reopened, and disposed of with `cleanup` once closed. */
async function openTracked(
  options: NotificationStoreOptions,
  cleanup: () => Promise<void>,
): Promise<TestStore> {
  const opened: TestStore = {
    store: await createNotificationStore(options),
    options,
    async reopen() {
      await opened.store.close();
      opened.store = await createNotificationStore({ ...options, migrate: false });
      return opened.store;
    },
    async dispose() {
      await opened.store.close();
      await cleanup();
    },
  };
  return opened;
}

/** Opens a store on PGlite in a temp directory; dispose removes the directory. */
async function openPglite(extra: NotificationStoreOptions = {}): Promise<TestStore> {
  const dataDir = await mkdtemp(join(tmpdir(), 'herald-notifications-'));
  return openTracked({ dataDir, ...extra }, () => rm(dataDir, { recursive: true, force: true }));
}

/** Opens a store on PostgreSQL in a schema of its own; dispose drops the schema. */
async function openPostgres(extra: NotificationStoreOptions = {}): Promise<TestStore> {
  const schema = randomSchema('herald_notifications_test');
  return openTracked({ url: POSTGRES_URL, schema, ...extra }, () => dropSchema(schema));
}

/** Both stores, for `describe.each`. */
export const STORES = [
  { driver: 'pglite', open: openPglite },
  { driver: 'postgres', open: openPostgres },
] as const;
