import type { StoredApp } from '@herald/app-store-postgres';
import type { Logger, PreviousSecret } from '@herald/protocol-core';
import { type AppStore, createStaticAppStore } from '@herald/realtime-server';
import { type ApplicationConfig, applicationSchema, type RealtimeConfig } from './config-schema.js';
import { scoped } from './logger.js';

/** An app as the server serves it: its config keys with defaults applied, and any secrets still in their grace period. */
export type ServedApp = ApplicationConfig & { readonly previous_secrets?: readonly PreviousSecret[] };

/** Counts the store reports (the server's `appStoreHooks`). */
export interface AppStoreHooks {
  outage(): void;
  restored(): void;
  skippedRows(count: number): void;
}

/**
 * Turns a stored row into a served app through the same schema as the config file, so a row gets exactly the
 * defaults a file entry gets. Returns the problems (with the key at fault) when the row does not pass.
 */
export function servedAppOf(
  record: StoredApp,
): { ok: true; app: ServedApp } | { ok: false; problems: string[] } {
  // Rotation bookkeeping is not a config key. Columns the config schema does not know (yet), such as the webhook
  // settings before webhooks are served, are stored and kept but not handed to the server.
  const { previous_secrets: previous, ...columns } = record;
  const fields = Object.fromEntries(
    Object.entries(columns).filter(([key]) => key in applicationSchema.shape),
  );
  const parsed = applicationSchema.safeParse(fields);
  if (!parsed.success) {
    return {
      ok: false,
      problems: parsed.error.issues.flatMap((issue) =>
        issue.code === 'unrecognized_keys'
          ? issue.keys.map((key) => `${key}: is not an app key`)
          : [`${issue.path.join('.') || '(app)'}: ${issue.message}`],
      ),
    };
  }
  return { ok: true, app: previous ? { ...parsed.data, previous_secrets: previous } : parsed.data };
}

function servedApps(records: readonly StoredApp[], logger: Logger): ServedApp[] {
  const apps: ServedApp[] = [];
  for (const record of records) {
    const served = servedAppOf(record);
    if (served.ok) apps.push(served.app);
    else logger.warn('app row skipped', { appId: record.id, problems: served.problems });
  }
  return apps;
}

/**
 * Says what to do about a store the given key cannot open: the package's reason, plus which variable to set. Other
 * errors pass unchanged.
 */
export function explainStoreKeyError(error: unknown): unknown {
  if (!(error instanceof Error) || !('code' in error)) return error;
  if (error.code === 'key_required') {
    return new Error(
      `the app store holds encrypted app secrets, and REALTIME_APP_STORE_KEY is not set (${error.message}): set it to the key they were encrypted with`,
      { cause: error },
    );
  }
  if (error.code === 'wrong_key') {
    return new Error(
      `REALTIME_APP_STORE_KEY does not decrypt the app store's secrets, so nothing is served from them (${error.message}): set it to the key the store was encrypted with (after \`realtime apps rekey\`, the new key)`,
      { cause: error },
    );
  }
  return error;
}

/** Opens the PostgreSQL store named by `app_store.postgres` (loaded only when it is used). */
export async function openPostgresStore(
  config: RealtimeConfig,
  logger: Logger,
  options: { readonly hooks?: AppStoreHooks | undefined; readonly key?: Uint8Array | undefined } = {},
) {
  const { createPostgresAppStore } = await import('@herald/app-store-postgres');
  const settings = config.app_store.postgres;
  return createPostgresAppStore({
    url: settings.url as string,
    schema: settings.schema,
    table: settings.table,
    migrate: settings.migrate,
    logger: scoped(logger, 'app_store'),
    ...(options.hooks ? { metrics: options.hooks } : {}),
    ...(options.key ? { encryptionKey: options.key } : {}),
  });
}

/**
 * The apps the server serves, from the store `app_store.driver` names: the config file's `applications[]`
 * (static), or the PostgreSQL table, watched so every change applies on this node within a second. With `key`
 * (`REALTIME_APP_STORE_KEY`), the table's secrets are encrypted at rest.
 */
export async function openAppSource(
  config: RealtimeConfig,
  logger: Logger,
  options: { readonly hooks?: AppStoreHooks | undefined; readonly key?: Uint8Array | undefined } = {},
): Promise<AppStore<ServedApp>> {
  if (config.app_store.driver === 'config') return createStaticAppStore<ServedApp>(config.applications);
  const store = await openPostgresStore(config, logger, options);
  const log = scoped(logger, 'app_store');
  return {
    load: async () => {
      try {
        return servedApps(await store.load(), log);
      } catch (error) {
        throw explainStoreKeyError(error);
      }
    },
    watch: (listener) => store.watch((records) => listener(servedApps(records, log))),
    close: () => store.close(),
  };
}
