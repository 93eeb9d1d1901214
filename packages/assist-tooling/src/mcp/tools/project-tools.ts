import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { readPackageJson, readProject, runScriptCommand } from '../../project.js';
import { envFileKeys } from '../env-file.js';
import { redactTree, redactValue } from '../redact.js';
import { errorResult, jsonResult, paginate, textResult } from '../tool-result.js';
import { defineTool, type ToolContext } from './tool.js';

const URL_KEYS = [
  'APP_URL',
  'BASE_URL',
  'PUBLIC_URL',
  'SITE_URL',
  'ORIGIN',
  'NEXT_PUBLIC_SITE_URL',
  'NEXT_PUBLIC_APP_URL',
  'VITE_APP_URL',
];
const DEFAULT_PORTS: [string, number][] = [
  ['next', 3000],
  ['nuxt', 3000],
  ['@nestjs/core', 3000],
  ['astro', 4321],
  ['@adonisjs/core', 3333],
  ['@sveltejs/kit', 5173],
  ['vite', 5173],
];

/** The app's base URL: config `url`, then `APP_URL` and friends, then `PORT`, then the framework's default port. */
export function appBaseUrl(context: ToolContext): string {
  if (context.config.url) return context.config.url;
  const env = context.env();
  const fromEnv = URL_KEYS.map((key) => env[key]).find((value) => value !== undefined && value !== '');
  if (fromEnv) return fromEnv;
  if (env.PORT) return `http://localhost:${env.PORT}`;
  const project = readProject(context.root);
  const port = project.ok ? DEFAULT_PORTS.find(([name]) => project.value.packages.has(name))?.[1] : undefined;
  return `http://localhost:${port ?? 3000}`;
}

export const getAbsoluteUrl = defineTool({
  name: 'get-absolute-url',
  title: 'Get absolute URL',
  description:
    "Makes a path absolute with the app's configured URL. Give a route pattern with params (/users/:id + {id: 5}) to fill it in.",
  input: {
    path: z.string().default('/').describe('A path such as /users/5 or a pattern such as /users/:id.'),
    params: z
      .record(z.string(), z.union([z.string(), z.number()]))
      .optional()
      .describe('Values for :params in the path.'),
  },
  readOnly: true,
  run: ({ path, params }, context) => {
    const filled = path.replace(/:(\w+)[?+*]?/g, (whole, name: string) =>
      params?.[name] === undefined ? whole : encodeURIComponent(String(params[name])),
    );
    const missing = /:(\w+)/.exec(filled);
    if (missing) return errorResult(`No value for :${missing[1]}; pass it in params.`);
    const base = appBaseUrl(context);
    return textResult(
      new URL(filled.startsWith('/') ? filled : `/${filled}`, base.endsWith('/') ? base : `${base}/`).href,
    );
  },
});

export const currentTime = defineTool({
  name: 'current-time',
  title: 'Current time',
  description:
    "The host's current time as one ISO 8601 timestamp with offset, in the app's timezone or the one given. Prefer it over shell date.",
  input: { timezone: z.string().optional().describe('An IANA timezone such as Europe/Paris.') },
  readOnly: true,
  run: ({ timezone }, context) => {
    const zone =
      timezone ??
      context.config.timezone ??
      context.env().TZ ??
      Intl.DateTimeFormat().resolvedOptions().timeZone;
    try {
      return textResult(`${formatInZone(new Date(), zone)} (${zone})`);
    } catch {
      return errorResult(`Unknown timezone "${zone}"; use an IANA name such as Europe/Paris.`);
    }
  },
});

/** `2026-05-01T14:03:09+02:00` for a moment in a timezone. */
export function formatInZone(date: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZoneName: 'longOffset',
    })
      .formatToParts(date)
      .map((part) => [part.type, part.value]),
  );
  const offset = parts.timeZoneName === 'GMT' ? '+00:00' : String(parts.timeZoneName).replace('GMT', '');
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
}

function readJson(path: string): unknown {
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : undefined;
}

function lookup(value: unknown, key: string | undefined): unknown {
  if (key === undefined || key === '') return value;
  return key
    .split('.')
    .reduce<unknown>(
      (node, part) =>
        node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined,
      value,
    );
}

export const configRead = defineTool({
  name: 'config-read',
  title: 'Config read',
  description:
    "The app's configuration: variables from its .env files and config/ JSON files (node-config style), secrets redacted. " +
    'Give a variable name (APP_URL) or a dot path (env.DATABASE_URL, config.mail.from) to read one value.',
  input: {
    key: z
      .string()
      .optional()
      .describe('A variable name (APP_URL) or a dot path: env.NAME, config.a.b, assist.mcp.'),
  },
  readOnly: true,
  run: ({ key }, context) => {
    const env = context.env();
    const fromFiles = envFileKeys(context.root);
    const shownEnv = Object.fromEntries(
      [...fromFiles].sort().map((name) => [name, redactValue(name, env[name])]),
    );
    const mode = env.NODE_ENV ?? 'development';
    const configDir = join(context.root, 'config');
    const config: Record<string, unknown> = {};
    for (const name of ['default.json', `${mode}.json`, 'local.json']) {
      Object.assign(config, readJson(join(configDir, name)) as object | undefined);
    }
    const tree = { env: shownEnv, config: redactTree(config), assist: context.config };
    // A bare name such as APP_URL is read as env.APP_URL (unless it names a top-level key).
    const path = key !== undefined && !key.includes('.') && !(key in tree) ? `env.${key}` : key;
    const value = lookup(tree, path);
    if (value === undefined)
      return errorResult(
        path === `env.${key}`
          ? `No variable ${key} in the app's .env files (${Object.keys(shownEnv).length} defined; read "env" to list them).`
          : `Nothing at "${key}". Top-level keys: env, config, assist; or a variable name such as APP_URL.`,
      );
    return jsonResult(value);
  },
});

export const listCommands = defineTool({
  name: 'list-commands',
  title: 'List commands',
  description:
    "package.json scripts as the project's package manager runs them, the app's own bins, and installed CLIs (paged).",
  input: { cursor: z.string().optional().describe('nextCursor from the previous page of installed bins.') },
  readOnly: true,
  run: ({ cursor }, context) => {
    const project = readProject(context.root);
    if (!project.ok) return errorResult(project.error.message);
    const { packageManager, scripts } = project.value;
    const manifest = readPackageJson(context.root) as
      | { name?: string; bin?: string | Record<string, string> }
      | undefined;
    const own =
      typeof manifest?.bin === 'string' ? { [manifest.name ?? 'bin']: manifest.bin } : (manifest?.bin ?? {});
    const binDir = join(context.root, 'node_modules', '.bin');
    const bins = existsSync(binDir)
      ? readdirSync(binDir)
          .filter((name) => !/\.(cmd|ps1)$/.test(name))
          .sort()
      : [];
    return jsonResult({
      scripts: Object.fromEntries(
        Object.entries(scripts).map(([name, command]) => [
          name,
          { run: runScriptCommand(packageManager, name), command },
        ]),
      ),
      bins: own,
      installed: paginate(bins, cursor, 200),
    });
  },
});
