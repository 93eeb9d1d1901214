import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { AssistConfig } from '../../config.js';
import { redactUrl } from '../redact.js';

/** The database engines the query and schema tools speak to. */
export type DatabaseEngine = 'postgres' | 'mysql' | 'sqlite' | 'pglite';

/** A database the app uses, as found in its environment, ORM configs or `assist.config`. */
export interface DatabaseConnection {
  name: string;
  engine: DatabaseEngine;
  /** A connection URL for servers; an absolute folder or file for PGlite and SQLite. Holds secrets. */
  target: string;
  /** Where it was found: `.env DATABASE_URL`, `prisma/schema.prisma`, `drizzle.config.ts`… */
  sources: string[];
  default: boolean;
}

const ENV_KEYS = ['DATABASE_URL', 'POSTGRES_URL', 'POSTGRES_PRISMA_URL', 'PG_URL', 'MYSQL_URL', 'DB_URL'];

/** Tells the engine of a URL, or undefined when it is not a database this tool speaks to. */
export function engineOfUrl(url: string): DatabaseEngine | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') return 'postgres';
  if (scheme === 'mysql' || scheme === 'mariadb' || scheme === 'mysql2') return 'mysql';
  if (scheme === 'pglite') return 'pglite';
  if (scheme === 'sqlite' || scheme === 'file') return 'sqlite';
  if (scheme === undefined && /\.(db|sqlite3?)$/i.test(url)) return 'sqlite';
  return undefined;
}

function localPath(root: string, url: string): string {
  const path = url.replace(/^(sqlite|file|pglite):(\/\/)?/i, '').replace(/\?.*$/, '');
  return isAbsolute(path) ? path : resolve(root, path);
}

/**
 * Finds the app's database connections: `assist.config` `database.connections`, `DATABASE_URL` and friends
 * (also `*_DATABASE_URL` and `DB_CONNECTION`/`DB_HOST`…), Prisma's datasource, Drizzle's and Knex's configs.
 * The same target found twice is listed once with both sources.
 */
export function findDatabaseConnections(
  root: string,
  config: AssistConfig,
  env: Readonly<Record<string, string>>,
): DatabaseConnection[] {
  const found: DatabaseConnection[] = [];
  const add = (name: string, url: string | undefined, source: string, engineHint?: DatabaseEngine) => {
    if (url === undefined || url === '') return;
    const engine = engineHint ?? engineOfUrl(url);
    if (engine === undefined) return;
    const target = engine === 'sqlite' || engine === 'pglite' ? localPath(root, url) : url;
    const same = found.find((item) => item.target === target);
    if (same) same.sources.push(source);
    else found.push({ name, engine, target, sources: [source], default: false });
  };
  for (const [name, url] of Object.entries(config.database.connections)) add(name, url, 'assist.config');
  const envKeys = [
    ...ENV_KEYS,
    ...Object.keys(env).filter((key) => /_DATABASE_URL$/.test(key) && !ENV_KEYS.includes(key)),
  ];
  for (const key of envKeys) add(key.toLowerCase().replace(/_url$/, ''), env[key], `env ${key}`);
  add('db', laravelStyleUrl(env), 'env DB_*');
  readPrisma(root, env, add);
  readDrizzle(root, env, add);
  readKnex(root, env, add);
  const preferred = found.find((item) => item.name === config.database.default) ?? found[0];
  if (preferred) preferred.default = true;
  return found;
}

function laravelStyleUrl(env: Readonly<Record<string, string>>): string | undefined {
  const kind = env.DB_CONNECTION;
  if (kind === undefined) return undefined;
  if (kind === 'sqlite') return env.DB_DATABASE ? `sqlite:${env.DB_DATABASE}` : undefined;
  const scheme =
    kind === 'pgsql' || kind === 'postgres'
      ? 'postgres'
      : kind === 'mysql' || kind === 'mariadb'
        ? 'mysql'
        : undefined;
  if (scheme === undefined || env.DB_HOST === undefined) return undefined;
  const auth = env.DB_USERNAME
    ? `${encodeURIComponent(env.DB_USERNAME)}${env.DB_PASSWORD ? `:${encodeURIComponent(env.DB_PASSWORD)}` : ''}@`
    : '';
  return `${scheme}://${auth}${env.DB_HOST}${env.DB_PORT ? `:${env.DB_PORT}` : ''}/${env.DB_DATABASE ?? ''}`;
}

type Add = (name: string, url: string | undefined, source: string, engine?: DatabaseEngine) => void;

/** A string literal, or `process.env.X` / `env("X")` resolved against the app's environment. */
function resolveValue(
  expression: string | undefined,
  env: Readonly<Record<string, string>>,
): string | undefined {
  if (expression === undefined) return undefined;
  const literal = /^\s*(['"`])([^'"`]*)\1/.exec(expression);
  if (literal) return literal[2];
  const fromEnv = /(?:process\.env\.(\w+)|process\.env\[['"](\w+)['"]\]|env\(\s*['"](\w+)['"]\s*\))/.exec(
    expression,
  );
  const key = fromEnv?.[1] ?? fromEnv?.[2] ?? fromEnv?.[3];
  return key !== undefined ? env[key] : undefined;
}

function readPrisma(root: string, env: Readonly<Record<string, string>>, add: Add): void {
  const files = ['prisma/schema.prisma', 'schema.prisma'].filter((file) => existsSync(join(root, file)));
  if (existsSync(join(root, 'prisma/schema'))) {
    for (const name of readdirSync(join(root, 'prisma/schema'))) {
      if (name.endsWith('.prisma')) files.push(`prisma/schema/${name}`);
    }
  }
  for (const file of files) {
    const block = /datasource\s+\w+\s*\{([^}]*)\}/.exec(readFileSync(join(root, file), 'utf8'))?.[1];
    if (block === undefined) continue;
    const provider = /provider\s*=\s*"(\w+)"/.exec(block)?.[1];
    const url = resolveValue(/\burl\s*=\s*([^\n]+)/.exec(block)?.[1], env);
    const engine: DatabaseEngine | undefined =
      provider === 'postgresql'
        ? 'postgres'
        : provider === 'mysql'
          ? 'mysql'
          : provider === 'sqlite'
            ? 'sqlite'
            : undefined;
    // Prisma resolves SQLite `file:` paths from the schema's folder.
    const target = engine === 'sqlite' && url ? localPath(join(root, file, '..'), url) : url;
    add('prisma', target, file, engine);
  }
}

function readDrizzle(root: string, env: Readonly<Record<string, string>>, add: Add): void {
  for (const file of ['drizzle.config.ts', 'drizzle.config.mts', 'drizzle.config.js', 'drizzle.config.mjs']) {
    if (!existsSync(join(root, file))) continue;
    const text = readFileSync(join(root, file), 'utf8');
    const dialect = /dialect\s*:\s*['"](\w+)['"]/.exec(text)?.[1];
    const driver = /driver\s*:\s*['"]([\w-]+)['"]/.exec(text)?.[1];
    const url = resolveValue(/\burl\s*:\s*([^,\n}]+)/.exec(text)?.[1], env);
    const engine: DatabaseEngine | undefined =
      driver === 'pglite'
        ? 'pglite'
        : dialect === 'postgresql'
          ? 'postgres'
          : dialect === 'mysql' || dialect === 'singlestore'
            ? 'mysql'
            : dialect === 'sqlite'
              ? 'sqlite'
              : undefined;
    add('drizzle', url, file, engine);
  }
}

function readKnex(root: string, env: Readonly<Record<string, string>>, add: Add): void {
  for (const file of ['knexfile.ts', 'knexfile.js', 'knexfile.mjs', 'knexfile.cjs']) {
    if (!existsSync(join(root, file))) continue;
    const text = readFileSync(join(root, file), 'utf8');
    const client = /client\s*:\s*['"]([\w-]+)['"]/.exec(text)?.[1];
    const engine: DatabaseEngine | undefined =
      client === 'pg' || client === 'postgres' || client === 'postgresql'
        ? 'postgres'
        : client?.startsWith('mysql')
          ? 'mysql'
          : client === 'better-sqlite3' || client === 'sqlite3'
            ? 'sqlite'
            : undefined;
    const connection =
      resolveValue(/connection\s*:\s*([^,\n{]+)/.exec(text)?.[1], env) ??
      resolveValue(/filename\s*:\s*([^,\n}]+)/.exec(text)?.[1], env);
    add('knex', connection, file, engine);
  }
}

/** A connection as shown to an agent: engine, host, database or file, never a password. */
export function describeConnection(connection: DatabaseConnection): Record<string, unknown> {
  const base = {
    name: connection.name,
    engine: connection.engine,
    default: connection.default,
    sources: connection.sources,
  };
  if (connection.engine === 'sqlite' || connection.engine === 'pglite')
    return { ...base, path: connection.target };
  try {
    const url = new URL(connection.target);
    return {
      ...base,
      host: url.hostname,
      port: url.port === '' ? undefined : Number(url.port),
      database: url.pathname.replace(/^\//, '') || undefined,
      user: decodeURIComponent(url.username) || undefined,
      url: redactUrl(connection.target),
    };
  } catch {
    // Not a parseable URL (a socket path, say): show it with any password masked.
    return { ...base, url: redactUrl(connection.target) };
  }
}
