import { existsSync, readFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseStoreKey } from '@herald/app-store-postgres/key';
import { parseWebhooksEnv } from '@herald/webhooks';
import { z } from 'zod';
import { configSchema, formatIssues, type RealtimeConfig } from './config-schema.js';
import { makeConsoleToken } from './console/auth.js';
import { DEFAULT_CONFIG, DEMO_SECRET } from './defaults.js';

/** File names looked for in the working directory, in order. */
export const CONFIG_FILES = [
  'realtime.config.json',
  'realtime.config.js',
  'realtime.config.mjs',
  'realtime.config.ts',
];

const flag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => ['true', '1', 'yes'].includes(value));
const port = z.coerce.number().int().min(0).max(65535);

/** The environment variables the app reads, all optional; each overrides the matching config key. */
export const envSchema = z.object({
  REALTIME_CONFIG: z.string().min(1).optional(),
  REALTIME_SERVER: z.string().min(1).optional(),
  REALTIME_HOST: z.string().min(1).optional(),
  REALTIME_PORT: port.optional(),
  REALTIME_PATH: z.string().optional(),
  REALTIME_HOSTNAME: z.string().min(1).optional(),
  REALTIME_TLS_CERT: z.string().min(1).optional(),
  REALTIME_TLS_KEY: z.string().min(1).optional(),
  REALTIME_MAX_REQUEST_SIZE: z.coerce.number().int().positive().optional(),
  REALTIME_SHUTDOWN_GRACE_PERIOD: z.coerce.number().min(0).optional(),
  REALTIME_WORKERS: z.coerce.number().int().min(1).optional(),
  REALTIME_APP_ID: z.string().min(1).optional(),
  REALTIME_APP_KEY: z.string().min(1).optional(),
  REALTIME_APP_SECRET: z.string().min(1).optional(),
  REALTIME_APP_NAME: z.string().min(1).optional(),
  REALTIME_ALLOWED_ORIGINS: z.string().min(1).optional(),
  REALTIME_MAX_CONNECTIONS: z.coerce.number().int().positive().optional(),
  REALTIME_DEBUG: flag.optional(),
  REALTIME_SCALING_ENABLED: flag.optional(),
  REALTIME_REDIS_URL: z.string().min(1).optional(),
  /** Checked by the config schema, so a bad value is reported as `scaling.routing`. */
  REALTIME_SCALING_ROUTING: z.string().optional(),
  REALTIME_TRANSPORT: z.enum(['auto', 'uws', 'portable']).optional(),
  REALTIME_APP_STORE_DRIVER: z.enum(['config', 'postgres']).optional(),
  REALTIME_APP_STORE_URL: z.string().min(1).optional(),
  REALTIME_APP_STORE_SCHEMA: z.string().min(1).optional(),
  REALTIME_APP_STORE_TABLE: z.string().min(1).optional(),
  // Secrets at rest and metrics security (issue 27): the app store's keys never live in the config file.
  /** The 32-byte key app secrets are encrypted with in the PostgreSQL store (64 hex characters or base64). */
  REALTIME_APP_STORE_KEY: z.string().optional(),
  /** The key `realtime apps rekey` re-encrypts to. */
  REALTIME_APP_STORE_NEW_KEY: z.string().optional(),
  /** Overrides `metrics.auth_token`. */
  REALTIME_METRICS_TOKEN: z.string().min(1).optional(),
  /** Overrides `metrics.port`. */
  REALTIME_METRICS_PORT: port.optional(),
  /** The console's token; turns the console on unless the file sets `console.enabled` to false. */
  REALTIME_CONSOLE_TOKEN: z.string().optional(),
  NODE_ENV: z.string().optional(),
});

/** Overrides given on the command line; they win over the file and the environment. */
export interface CliOverrides {
  readonly host?: string | undefined;
  readonly port?: number | undefined;
  readonly config?: string | undefined;
  readonly debug?: boolean | undefined;
  readonly workers?: number | undefined;
}

/** The app store's encryption keys from the environment, parsed (kept out of the config so it never prints them). */
export interface StoreKeys {
  /** `REALTIME_APP_STORE_KEY`: app secrets are encrypted with it at rest. */
  readonly key?: Uint8Array;
  /** `REALTIME_APP_STORE_NEW_KEY`: what `realtime apps rekey` re-encrypts to. */
  readonly newKey?: Uint8Array;
}

/** The outcome of loading: the config and where it came from, or every problem found. */
export type LoadResult =
  | { ok: true; config: RealtimeConfig; source: string; debug: boolean; storeKeys: StoreKeys }
  | { ok: false; problems: string[]; source: string };

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function readConfigFile(file: string): Promise<unknown> {
  const extension = extname(file);
  if (extension === '.json') return JSON.parse(readFileSync(file, 'utf8'));
  if (extension === '.ts' || extension === '.mts') {
    const { tsImport } = await import('tsx/esm/api');
    const module = (await tsImport(pathToFileURL(file).href, import.meta.url)) as { default?: unknown };
    // Outside an ESM package tsx compiles the file to CommonJS, which nests `export default` one level down.
    const value = module.default;
    if (
      isObject(value) &&
      'default' in value &&
      Object.keys(value).every((key) => key === 'default' || key === '__esModule')
    ) {
      return value.default;
    }
    return value;
  }
  const module = (await import(pathToFileURL(file).href)) as { default?: unknown };
  return module.default;
}

function findConfigFile(cwd: string, explicit: string | undefined): string | undefined {
  if (explicit) return resolve(cwd, explicit);
  return CONFIG_FILES.map((name) => resolve(cwd, name)).find((file) => existsSync(file));
}

// Writes an override into the raw config before validation, so the schema still names the key at fault.
function set(target: Json, path: readonly string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    if (!isObject(node[key])) node[key] = {};
    node = node[key] as Json;
  }
  node[path[path.length - 1] as string] = value;
}

function applyOverrides(raw: Json, env: z.output<typeof envSchema>, cli: CliOverrides): void {
  if (env.REALTIME_SERVER) raw.default = env.REALTIME_SERVER;
  const serverName = typeof raw.default === 'string' ? raw.default : 'herald';
  const server = ['servers', serverName];
  const serverOverrides: Array<[string[], unknown]> = [
    [['host'], cli.host ?? env.REALTIME_HOST],
    [['port'], cli.port ?? env.REALTIME_PORT],
    [['path'], env.REALTIME_PATH],
    [['hostname'], env.REALTIME_HOSTNAME],
    [['max_request_size'], env.REALTIME_MAX_REQUEST_SIZE],
    [['shutdown_grace_period'], env.REALTIME_SHUTDOWN_GRACE_PERIOD],
    [['workers'], cli.workers ?? env.REALTIME_WORKERS],
    [['options', 'tls', 'local_cert'], env.REALTIME_TLS_CERT],
    [['options', 'tls', 'local_pk'], env.REALTIME_TLS_KEY],
  ];
  for (const [path, value] of serverOverrides) if (value !== undefined) set(raw, [...server, ...path], value);

  const appOverrides: Array<[string, unknown]> = [
    ['id', env.REALTIME_APP_ID],
    ['key', env.REALTIME_APP_KEY],
    ['secret', env.REALTIME_APP_SECRET],
    ['name', env.REALTIME_APP_NAME],
    ['allowed_origins', env.REALTIME_ALLOWED_ORIGINS?.split(',').map((origin) => origin.trim())],
    ['max_connections', env.REALTIME_MAX_CONNECTIONS],
  ];
  if (appOverrides.some(([, value]) => value !== undefined)) {
    if (!Array.isArray(raw.applications) || raw.applications.length === 0) raw.applications = [{}];
    const first = (raw.applications as unknown[])[0];
    const app: Json = isObject(first) ? first : {};
    (raw.applications as unknown[])[0] = app;
    for (const [key, value] of appOverrides) if (value !== undefined) app[key] = value;
  }
  if (env.REALTIME_SCALING_ENABLED !== undefined)
    set(raw, ['scaling', 'enabled'], env.REALTIME_SCALING_ENABLED);
  if (env.REALTIME_REDIS_URL !== undefined) set(raw, ['scaling', 'server', 'url'], env.REALTIME_REDIS_URL);
  if (env.REALTIME_SCALING_ROUTING !== undefined)
    set(raw, ['scaling', 'routing'], env.REALTIME_SCALING_ROUTING);
  if (env.REALTIME_TRANSPORT !== undefined) raw.transport = env.REALTIME_TRANSPORT;
  const storeOverrides: Array<[string[], unknown]> = [
    [['driver'], env.REALTIME_APP_STORE_DRIVER],
    [['postgres', 'url'], env.REALTIME_APP_STORE_URL],
    [['postgres', 'schema'], env.REALTIME_APP_STORE_SCHEMA],
    [['postgres', 'table'], env.REALTIME_APP_STORE_TABLE],
  ];
  for (const [path, value] of storeOverrides)
    if (value !== undefined) set(raw, ['app_store', ...path], value);
  if (env.REALTIME_METRICS_TOKEN !== undefined)
    set(raw, ['metrics', 'auth_token'], env.REALTIME_METRICS_TOKEN);
  if (env.REALTIME_METRICS_PORT !== undefined) set(raw, ['metrics', 'port'], env.REALTIME_METRICS_PORT);
  if (env.REALTIME_CONSOLE_TOKEN !== undefined) {
    set(raw, ['console', 'token'], env.REALTIME_CONSOLE_TOKEN);
    if (!isObject(raw.console) || raw.console.enabled === undefined) set(raw, ['console', 'enabled'], true);
  }
  const debug = cli.debug ?? env.REALTIME_DEBUG;
  if (debug !== undefined) set(raw, ['logging', 'debug_enabled'], debug);
}

/**
 * Loads the configuration: embedded defaults, or the config file, then `REALTIME_*` variables, then the command
 * line. Every problem is returned with its key path; nothing is silently ignored.
 */
export async function loadConfig(options: {
  cwd: string;
  env: NodeJS.ProcessEnv;
  cli?: CliOverrides;
}): Promise<LoadResult> {
  const cli = options.cli ?? {};
  const env = envSchema.safeParse(options.env);
  if (!env.success) return { ok: false, problems: formatIssues(env.error.issues), source: 'environment' };
  const file = findConfigFile(options.cwd, cli.config ?? env.data.REALTIME_CONFIG);
  let raw: unknown;
  let source = 'embedded defaults';
  if (file) {
    source = file;
    if (!existsSync(file)) return { ok: false, problems: [`config: file not found: ${file}`], source };
    try {
      raw = await readConfigFile(file);
    } catch (error) {
      return { ok: false, problems: [`config: cannot read ${file}: ${(error as Error).message}`], source };
    }
    if (!isObject(raw)) return { ok: false, problems: ['(root): the config must be an object'], source };
  } else {
    // A token for this run only, printed with the console's URL (REALTIME_CONSOLE_TOKEN replaces it below).
    raw = { ...structuredClone(DEFAULT_CONFIG), console: { enabled: true, token: makeConsoleToken() } };
  }
  const editable = raw as Json;
  applyOverrides(editable, env.data, cli);
  // Webhooks from the environment: REALTIME_APP_WEBHOOKS (the first app's list) and REALTIME_WEBHOOKS (lists by
  // app id), each JSON; they replace the file's list of that app.
  const webhooks = parseWebhooksEnv(options.env);
  if (!webhooks.ok) return { ok: false, problems: webhooks.error, source: 'environment' };
  const apps = Array.isArray(editable.applications) ? (editable.applications as unknown[]) : [];
  apps.forEach((app, index) => {
    if (!isObject(app)) return;
    const fromEnv = (index === 0 ? webhooks.value.app : undefined) ?? webhooks.value.byApp[String(app.id)];
    if (fromEnv) app.webhooks = fromEnv;
  });
  const unknown = Object.keys(webhooks.value.byApp).filter(
    (id) => !apps.some((app) => isObject(app) && app.id === id),
  );
  if (unknown.length > 0) {
    return {
      ok: false,
      problems: unknown.map((id) => `REALTIME_WEBHOOKS.${id}: no application has the id "${id}"`),
      source: 'environment',
    };
  }
  const parsed = configSchema.safeParse(editable);
  if (!parsed.success) return { ok: false, problems: formatIssues(parsed.error.issues), source };
  const config = parsed.data;
  // The file's apps are served only by the config driver; with a store, the demo entry is never served.
  if (env.data.NODE_ENV === 'production' && config.app_store.driver === 'config') {
    const problems = config.applications.flatMap((app, index) =>
      app.secret === DEMO_SECRET
        ? [
            `applications.${index}.secret: is the demo placeholder; set a real secret (config file or REALTIME_APP_SECRET) before running with NODE_ENV=production`,
          ]
        : [],
    );
    if (problems.length > 0) return { ok: false, problems, source };
  }
  const keys = readStoreKeys(env.data);
  if (!keys.ok) return { ok: false, problems: keys.problems, source: 'environment' };
  return { ok: true, config, source, debug: config.logging.debug_enabled, storeKeys: keys.keys };
}

/** Parses the app store keys; a value that is not 32 bytes is a problem naming its variable (never its value). */
export function readStoreKeys(
  env: Pick<z.output<typeof envSchema>, 'REALTIME_APP_STORE_KEY' | 'REALTIME_APP_STORE_NEW_KEY'>,
): { ok: true; keys: StoreKeys } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  const keys: { key?: Uint8Array; newKey?: Uint8Array } = {};
  for (const [name, field] of [
    ['REALTIME_APP_STORE_KEY', 'key'],
    ['REALTIME_APP_STORE_NEW_KEY', 'newKey'],
  ] as const) {
    const text = env[name];
    if (text === undefined || text === '') continue;
    const parsed = parseStoreKey(text);
    if (parsed.ok) keys[field] = parsed.value;
    else problems.push(`${name}: ${parsed.error}`);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, keys };
}
