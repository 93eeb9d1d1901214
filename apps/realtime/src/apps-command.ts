import { parseArgs } from 'node:util';
import type { AppFields, PostgresAppStore, StoredApp } from '@herald/app-store-postgres';
import type { LogFields, Logger } from '@herald/protocol-core';
import { explainStoreKeyError, openPostgresStore, servedAppOf } from './app-source.js';
import { appSummary, NO_APPS } from './banner.js';
import type { RealtimeConfig } from './config-schema.js';
import { loadConfig, type StoreKeys } from './load-config.js';

type Fail = (lines: readonly string[], source: string) => never;

/** Refuses a command: every problem on its own line, exit code 1. */
function refuse(lines: readonly string[]): never {
  for (const line of lines) console.error(`realtime: ${line}`);
  process.exit(1);
}

const ACTIONS = ['list', 'add', 'update', 'disable', 'enable', 'rotate-secret', 'migrate', 'rekey'] as const;
type Action = (typeof ACTIONS)[number];

// Commands print to the terminal: warnings (a skipped row) go to stderr with the fields that say which.
const terminalLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: (message: string, fields?: LogFields) => console.error(`realtime: ${message}${describe(fields)}`),
  error: (message: string, fields?: LogFields) => console.error(`realtime: ${message}${describe(fields)}`),
};

function describe(fields: LogFields | undefined): string {
  if (!fields) return '';
  const parts = ['appId', 'column', 'reason', 'problems']
    .filter((name) => fields[name] !== undefined)
    .map((name) => `${name}=${JSON.stringify(fields[name])}`);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

/** `--set key=value`: the value is read as JSON when it parses (numbers, booleans, arrays, null), else as text. */
function parseSets(entries: readonly string[]): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    if (eq <= 0) refuse([`--set ${entry}: expected <key>=<value>`]);
    const value = entry.slice(eq + 1);
    let parsed: unknown = value;
    try {
      parsed = JSON.parse(value);
    } catch {
      // Plain text, e.g. --set name=Shop.
    }
    changes[entry.slice(0, eq)] = parsed;
  }
  return changes;
}

/**
 * Checks an app as it would be after a write: against the table's columns (what the store itself refuses), then
 * the config file's schema (the defaults the server applies); key paths name what is wrong.
 */
async function checkApp(app: Record<string, unknown>): Promise<AppFields> {
  const { parseApp } = await import('@herald/app-store-postgres');
  const columns = parseApp(app);
  if (!columns.ok) refuse([`app ${String(app.id)}: ${columns.error.column}: ${columns.error.message}`]);
  const served = servedAppOf(columns.value);
  if (!served.ok) refuse(served.problems.map((problem) => `app ${String(app.id)}: ${problem}`));
  return columns.value;
}

function printApps(apps: readonly StoredApp[], config: RealtimeConfig): void {
  const served = apps.flatMap((record) => {
    const app = servedAppOf(record);
    if (app.ok) return [app.app];
    console.error(`realtime: app ${record.id} is not served: ${app.problems.join('; ')}`);
    return [];
  });
  const port = config.servers[config.default]?.port ?? 8080;
  console.log(appSummary(served, config, port).join('\n'));
}

/**
 * `apps rekey`: every row from REALTIME_APP_STORE_KEY (or from plaintext, without it) to REALTIME_APP_STORE_NEW_KEY,
 * in one transaction.
 */
async function rekey(store: PostgresAppStore, keys: StoreKeys): Promise<void> {
  if (keys.newKey === undefined) {
    refuse([
      'apps rekey: set REALTIME_APP_STORE_NEW_KEY to the new key (64 hex characters or base64 of 32 bytes; `openssl rand -hex 32` makes one), and REALTIME_APP_STORE_KEY to the current one',
    ]);
  }
  if (keys.key !== undefined && Buffer.from(keys.key).equals(Buffer.from(keys.newKey))) {
    refuse(['apps rekey: REALTIME_APP_STORE_NEW_KEY is the current key (REALTIME_APP_STORE_KEY)']);
  }
  const { createSecretCipher } = await import('@herald/app-store-postgres');
  const rows = await store.rekey(keys.newKey);
  console.log(
    `Re-encrypted the secrets of ${rows} app${rows === 1 ? '' : 's'} with the new key (key id ${createSecretCipher(keys.newKey).keyId}).`,
  );
  console.log(
    'Now restart every node with REALTIME_APP_STORE_KEY set to the new key. Until then, a node on the old key keeps serving the apps it loaded and logs each row it cannot decrypt.',
  );
}

async function run(action: Action, argv: string[], config: RealtimeConfig, keys: StoreKeys): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      config: { type: 'string' },
      id: { type: 'string' },
      key: { type: 'string' },
      secret: { type: 'string' },
      name: { type: 'string' },
      set: { type: 'string', multiple: true },
      grace: { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  const needsId = action !== 'list' && action !== 'add' && action !== 'migrate' && action !== 'rekey';
  const id = positionals[0];
  if (needsId && id === undefined) refuse([`apps ${action}: the app id is required`]);

  const store: PostgresAppStore = await openPostgresStore(config, terminalLogger, { key: keys.key });
  try {
    switch (action) {
      case 'rekey':
        return await rekey(store, keys);
      case 'migrate': {
        await store.migrate();
        console.log(`App table ${store.names.schema}.${store.names.table} is ready.`);
        return;
      }
      case 'list': {
        const apps = await store.load();
        if (apps.length === 0) console.log(NO_APPS);
        printApps(apps, config);
        return;
      }
      case 'add': {
        if (values.id === undefined) refuse(['apps add: --id is required']);
        const { generateSecret } = await import('@herald/app-store-postgres');
        const app: Record<string, unknown> = {
          ...parseSets(values.set ?? []),
          id: values.id,
          key: values.key ?? generateSecret().slice(0, 20),
          secret: values.secret ?? generateSecret(),
          ...(values.name !== undefined ? { name: values.name } : {}),
        };
        const added = await store.add(await checkApp(app));
        console.log(`Added app ${added.id}.`);
        printApps([added], config);
        if (values.secret === undefined) console.log(`    Secret (shown once): ${added.secret}\n`);
        return;
      }
      case 'update':
      case 'disable':
      case 'enable': {
        const changes = action === 'update' ? parseSets(values.set ?? []) : { enabled: action === 'enable' };
        if (Object.keys(changes).length === 0) refuse(['apps update: give at least one --set <key>=<value>']);
        const existing = await store.get(id as string);
        if (!existing) refuse([`apps ${action}: no app has the id "${id}"`]);
        const { previous_secrets: _previous, ...fields } = existing;
        await checkApp({ ...fields, ...changes });
        const updated = await store.update(id as string, changes);
        console.log(
          `${action === 'update' ? 'Updated' : action === 'enable' ? 'Enabled' : 'Disabled'} app ${updated.id}.`,
        );
        printApps([updated], config);
        return;
      }
      case 'rotate-secret': {
        const grace =
          values.grace === undefined ? config.app_store.rotate_grace_seconds : Number(values.grace);
        if (!Number.isInteger(grace) || grace < 0)
          refuse([`--grace: "${values.grace}" is not a number of seconds`]);
        const rotated = await store.rotateSecret(id as string, {
          graceSeconds: grace,
          ...(values.secret !== undefined ? { secret: values.secret } : {}),
        });
        console.log(
          grace > 0
            ? `Rotated the secret of app ${rotated.app.id}; the old secret is accepted until ${new Date(rotated.previousValidUntil).toISOString()}.`
            : `Rotated the secret of app ${rotated.app.id}; the old secret no longer works.`,
        );
        printApps([rotated.app], config);
        if (values.secret === undefined) console.log(`    New secret (shown once): ${rotated.secret}\n`);
        return;
      }
    }
  } finally {
    await store.close();
  }
}

/** `realtime apps <action>`: reads and writes the PostgreSQL app store named by the config. */
export async function appsCommand(argv: string[], fail: Fail): Promise<void> {
  const [action, ...rest] = argv;
  if (!ACTIONS.includes(action as Action)) {
    refuse([
      `apps: expected one of ${ACTIONS.join(', ')}; got ${action === undefined ? 'nothing' : `"${action}"`}`,
    ]);
  }
  const configIndex = rest.indexOf('--config');
  const file =
    configIndex >= 0 ? rest[configIndex + 1] : rest.find((arg) => arg.startsWith('--config='))?.slice(9);
  const loaded = await loadConfig({ cwd: process.cwd(), env: process.env, cli: { config: file } });
  if (!loaded.ok) fail(loaded.problems, loaded.source);
  const { config } = loaded;
  if (config.app_store.driver === 'config') {
    if (action === 'list') {
      console.log(
        appSummary(config.applications, config, config.servers[config.default]?.port ?? 8080).join('\n'),
      );
      return;
    }
    refuse([
      `apps ${action}: app_store.driver is "config", so the apps live in ${loaded.source}: edit it and run \`realtime restart_server\`, or set app_store.driver to "postgres"`,
    ]);
  }
  try {
    await run(action as Action, rest, config, loaded.storeKeys);
  } catch (error) {
    console.error(`realtime: ${(explainStoreKeyError(error) as Error).message}`);
    process.exit(1);
  }
}
