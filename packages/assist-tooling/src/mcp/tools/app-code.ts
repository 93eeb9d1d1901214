import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { readPackageJson, readProject } from '../../project.js';
import { runInChild } from '../app/child.js';
import { listNextRoutes } from '../app/next-routes.js';
import type { AppRoute } from '../app/routes-in-app.js';
import { errorResult, jsonResult, paginate, textResult } from '../tool-result.js';
import { defineTool, type ToolContext } from './tool.js';

const ENTRY_GUESSES = [
  'src/app',
  'src/server',
  'src/index',
  'src/main',
  'app',
  'server',
  'index',
  'main',
].flatMap((base) => ['.ts', '.mts', '.js', '.mjs'].map((ext) => base + ext));
const ROUTES_TIMEOUT_MS = 20_000;

/** The module that exports the app: config `app`, a conventional file, or package.json `main`. */
export function findAppEntry(root: string, configured: string | undefined): string | undefined {
  if (configured !== undefined) return configured;
  const guess = ENTRY_GUESSES.find((file) => existsSync(join(root, file)));
  return guess ?? (readPackageJson(root) as { main?: string } | undefined)?.main;
}

/** The routes and where they came from: the framework and, for apps loaded from code, the entry module. */
type RouteList = { framework: string; entry?: string; routes: AppRoute[] };

async function loadRoutes(context: ToolContext): Promise<RouteList | string> {
  const project = readProject(context.root);
  if (project.ok && project.value.packages.has('next'))
    return { framework: 'next', routes: listNextRoutes(context.root) };
  const entry = findAppEntry(context.root, context.config.app);
  if (entry === undefined) return 'No app module found; set "app" in assist.config (e.g. "src/app.ts#app").';
  const outcome = await runInChild<RouteList>(
    { kind: 'routes', root: context.root, entry },
    ROUTES_TIMEOUT_MS,
  );
  return outcome.ok
    ? { framework: outcome.value.framework, entry, routes: outcome.value.routes }
    : `Could not read the routes of ${entry}: ${outcome.error.split('\n    at ')[0]}`;
}

export const listRoutes = defineTool({
  name: 'list-routes',
  title: 'List routes',
  description:
    "The app's routes (hono, express, fastify, Next.js): method, path and handler name, and the entry module loaded. " +
    'Loads the app in a separate process that cannot bind ports. Filter by path text or method; paged with cursor.',
  input: {
    filter: z.string().optional().describe('Keep routes whose path or handler contains this text.'),
    method: z.string().optional().describe('Keep routes of this HTTP method.'),
    middleware: z.boolean().optional().describe('Also list middleware (hidden by default).'),
    cursor: z.string().optional().describe('nextCursor from the previous page.'),
  },
  readOnly: true,
  run: async ({ filter, method, middleware, cursor }, context) => {
    const list = await loadRoutes(context);
    if (typeof list === 'string') return errorResult(list);
    const needle = filter?.toLowerCase();
    const routes = list.routes.filter(
      (route) =>
        (middleware || !route.middleware) &&
        (method === undefined || route.method === method.toUpperCase() || route.method === 'ALL') &&
        (needle === undefined || `${route.path} ${route.handler ?? ''}`.toLowerCase().includes(needle)),
    );
    return jsonResult({ framework: list.framework, entry: list.entry, ...paginate(routes, cursor, 100) });
  },
});

const OPTIONAL_REST = /^:\w+\*$/;
const REST = /^(?:\*\w*|:\w+\+)$/;

/** Whether a route pattern (`/users/:id`, `/files/*`, `/docs/:path*`) matches a concrete path. */
export function routeMatches(pattern: string, path: string): boolean {
  const source = pattern
    .split('/')
    .slice(1)
    .map((part) => {
      // An optional catch-all (`:path*`, Next's `[[...path]]`) also answers the path without it.
      if (OPTIONAL_REST.test(part)) return '(?:/.*)?';
      if (REST.test(part)) return '/.+';
      if (part.startsWith(':')) return '/[^/]+';
      return `/${part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
    })
    .join('');
  return new RegExp(`^${source}/?$`).test(path);
}

export const getRoute = defineTool({
  name: 'get-route',
  title: 'Get route',
  description:
    'The route(s) that answer a concrete path such as /users/42, with the handler name, optionally for one method.',
  input: {
    path: z.string().min(1).describe('A request path such as /users/42.'),
    method: z.string().optional(),
  },
  readOnly: true,
  run: async ({ path, method }, context) => {
    const list = await loadRoutes(context);
    if (typeof list === 'string') return errorResult(list);
    const matches = list.routes.filter(
      (route) =>
        !route.middleware &&
        routeMatches(route.path, path.replace(/\?.*$/, '')) &&
        (method === undefined || route.method === method.toUpperCase() || route.method === 'ALL'),
    );
    return matches.length === 0
      ? errorResult(`No route answers ${method ? `${method.toUpperCase()} ` : ''}${path}.`)
      : jsonResult({ framework: list.framework, entry: list.entry, routes: matches });
  },
});

export const execute = defineTool({
  name: 'execute',
  title: 'Execute code in the app',
  description:
    "Runs TypeScript in the app's context in a separate process (imports resolved from the project root, top-level " +
    'await, the last expression returned) with a time limit. Never change or delete data without the user asking.',
  input: {
    code: z
      .string()
      .min(1)
      .max(50_000)
      .describe('TypeScript; `import` lines allowed; the last expression is the result.'),
    timeout: z
      .number()
      .int()
      .positive()
      .max(180)
      .optional()
      .describe('Seconds before the process is killed.'),
  },
  readOnly: false,
  optIn: (config) => config.execute.enabled,
  run: async ({ code, timeout }, context) => {
    const seconds = Math.min(timeout ?? context.config.execute.timeout, context.config.execute.timeout);
    const outcome = await runInChild<{ result: string; logs: string[] }>(
      { kind: 'execute', root: context.root, code },
      seconds * 1000,
    );
    const logs = outcome.ok ? outcome.value.logs : outcome.logs;
    const output = logs.length > 0 ? `\n\nConsole:\n${logs.join('\n')}` : '';
    return outcome.ok
      ? textResult(`${outcome.value.result}${output}`)
      : errorResult(`${outcome.error}${output}`);
  },
});
