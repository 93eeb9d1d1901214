// Runs in the child process: reads the routes off a loaded app object of a known framework.
import { METHODS } from 'node:http';
import type { Module } from 'node:module';

/** One route of the app: method, path, and the handler's name where the function has one. */
export interface AppRoute {
  method: string;
  path: string;
  handler?: string;
  middleware?: boolean;
}

type Fn = ((...args: never[]) => unknown) & { name: string; length: number };
const nameOf = (fn: unknown): string | undefined =>
  typeof fn === 'function' && fn.name !== '' && !fn.name.startsWith('bound dispatch') ? fn.name : undefined;

// What the hooks below attach to framework objects: a router layer's mount path, a mounted sub-app, a fastify
// instance's routes. Symbols, so nothing the app itself reads can collide with them.
const MOUNT = Symbol.for('assist.mountPath');
const SUB_APP = Symbol.for('assist.subApp');
const FASTIFY_ROUTES = Symbol.for('assist.fastifyRoutes');

type RequireLike = NodeJS.Require;

/**
 * Prepares the frameworks the app will load, before it loads them, so the routes can be read back whole:
 * express (4 and 5) routers and apps remember the path they were mounted at, since Express 4 keeps only a
 * regexp and Express 5 before router 2.3 nothing at all; fastify instances record every route through an
 * `onRoute` hook, which gives full paths and handler names that `printRoutes` does not. Frameworks the app
 * does not have are skipped.
 */
export function prepareFrameworks(require: RequireLike): void {
  const express = tryRequire(require, 'express') as
    | { Router?: { prototype?: object } & object; application?: object }
    | undefined;
  if (express?.Router) {
    // Express 5: a Router class; Express 4: `Router` is itself the prototype of every router.
    const routerProto = (express.Router.prototype as { use?: unknown } | undefined)?.use
      ? express.Router.prototype
      : express.Router;
    recordMounts(routerProto as UseHolder, (self) => (self as { stack?: ExpressLayer[] }).stack);
    if (express.application)
      recordMounts(
        express.application as UseHolder,
        (self) => routerOf(self as Record<string, unknown>)?.stack,
      );
  }
  const fastifyPath = tryResolve(require, 'fastify');
  if (fastifyPath !== undefined) {
    require(fastifyPath);
    const cached = require.cache[fastifyPath] as Module | undefined;
    if (cached && typeof cached.exports === 'function') cached.exports = recordFastifyRoutes(cached.exports);
  }
}

function tryResolve(require: RequireLike, name: string): string | undefined {
  try {
    return require.resolve(name);
  } catch {
    // The app does not use this framework: nothing to prepare.
    return undefined;
  }
}

function tryRequire(require: RequireLike, name: string): unknown {
  const path = tryResolve(require, name);
  return path === undefined ? undefined : require(path);
}

type UseHolder = { use: (...args: unknown[]) => unknown; [PATCHED]?: true };
const PATCHED = Symbol.for('assist.patched');

/** Wraps `use` so each layer it adds keeps the path it was mounted at and, for a sub-app, the app itself. */
function recordMounts(holder: UseHolder, stackOf: (self: unknown) => ExpressLayer[] | undefined): void {
  if (typeof holder.use !== 'function' || holder[PATCHED]) return;
  const use = holder.use;
  holder.use = function use_(this: unknown, ...args: unknown[]) {
    const before = stackOf(this)?.length ?? 0;
    const result = use.apply(this, args);
    const first = args[0];
    const path = typeof first === 'function' ? '/' : first;
    const apps = args.flat(Number.POSITIVE_INFINITY).filter(isExpressApp);
    for (const layer of stackOf(this)?.slice(before) ?? []) {
      layer[MOUNT] ??= path as MountPath;
      if (layer.handle && (layer.handle as Fn).name === 'mounted_app') layer[SUB_APP] ??= apps.shift();
    }
    return result;
  };
  holder[PATCHED] = true;
}

function isExpressApp(value: unknown): value is Record<string, unknown> {
  return typeof value === 'function' && 'handle' in value && 'set' in value && 'mountpath' in value;
}

function routerOf(app: Record<string, unknown>): { stack?: ExpressLayer[] } | undefined {
  if (app._router !== undefined) return app._router as { stack?: ExpressLayer[] };
  try {
    return app.router as { stack?: ExpressLayer[] } | undefined;
  } catch {
    // Express 4 throws from its `router` getter; its `_router` is made on first use, so there is none yet.
    return undefined;
  }
}

interface FastifyRouteOptions {
  method: string | string[];
  url: string;
  handler?: unknown;
}

const fastifyApps: object[] = [];

/** The root fastify instance made last (plugins' encapsulated instances are not made by the factory). */
export function lastFastifyApp(): object | undefined {
  return fastifyApps.at(-1);
}

/** Wraps the fastify factory so each instance records its routes, the encapsulated plugins' ones included. */
function recordFastifyRoutes(factory: (...args: unknown[]) => unknown): (...args: unknown[]) => unknown {
  const wrapped = function fastify(...args: unknown[]) {
    const app = factory(...args) as Record<PropertyKey, unknown> & {
      addHook(name: 'onRoute', hook: (route: FastifyRouteOptions) => void): void;
    };
    const routes: FastifyRouteOptions[] = [];
    app[FASTIFY_ROUTES] = routes;
    fastifyApps.push(app);
    app.addHook('onRoute', (route) => {
      routes.push({ method: route.method, url: route.url, handler: route.handler });
    });
    return app;
  };
  // The module's named exports (`fastify`, `default`, errors…) point at the wrapper too.
  Object.assign(wrapped, factory, { fastify: wrapped, default: wrapped });
  return wrapped;
}

/** Lists the routes of a hono, express (4 and 5) or fastify app; throws for anything else. */
export async function listAppRoutes(app: unknown): Promise<{ framework: string; routes: AppRoute[] }> {
  const value = app as Record<PropertyKey, unknown>;
  if (Array.isArray(value.routes) && typeof value.fetch === 'function') {
    const routes = (value.routes as { method: string; path: string; handler: Fn }[]).map((route) => ({
      method: route.method,
      path: route.path,
      ...(nameOf(route.handler) ? { handler: nameOf(route.handler) } : {}),
      // hono tells middleware apart by arity: (c, next) against (c).
      ...(route.handler.length > 1 ? { middleware: true } : {}),
    }));
    return { framework: 'hono', routes };
  }
  if (typeof value.printRoutes === 'function' && typeof value.ready === 'function') {
    await (value.ready as () => Promise<unknown>)();
    const recorded = value[FASTIFY_ROUTES] as FastifyRouteOptions[] | undefined;
    if (recorded !== undefined) return { framework: 'fastify', routes: fastifyRoutes(recorded) };
    const text = (value.printRoutes as (options: object) => string)({ commonPrefix: false });
    return { framework: 'fastify', routes: parseFastifyTree(text) };
  }
  const router = typeof value.use === 'function' ? routerOf(value) : undefined;
  if (Array.isArray(router?.stack)) {
    return { framework: 'express', routes: walkExpress(router.stack, '') };
  }
  throw new Error('The app is not one assist can read routes from (hono, express, fastify).');
}

function fastifyRoutes(recorded: FastifyRouteOptions[]): AppRoute[] {
  const routes: AppRoute[] = [];
  for (const route of recorded) {
    for (const method of [route.method].flat())
      routes.push({ method, path: route.url || '/', ...handlerOf(route) });
  }
  // fastify adds a HEAD route for every GET route: list only the ones the app wrote.
  // (under a prefix, fastify serves `/prefix/` too and gives it only that HEAD route).
  const gets = new Set(routes.filter((route) => route.method === 'GET').map((route) => route.path));
  return routes.filter(
    (route) =>
      route.method !== 'HEAD' || !(gets.has(route.path) || gets.has(route.path.replace(/(.)\/$/, '$1'))),
  );
}

const handlerOf = (route: { handler?: unknown }) =>
  nameOf(route.handler) ? { handler: nameOf(route.handler) } : {};

type MountPath = string | RegExp | MountPath[];

interface ExpressLayer {
  route?: {
    path: MountPath;
    methods: Record<string, boolean>;
    stack: { handle: unknown; method?: string }[];
  };
  handle?: { stack?: unknown[] };
  regexp?: RegExp;
  keys?: { name: string | number }[];
  rawPath?: MountPath;
  [MOUNT]?: MountPath;
  [SUB_APP]?: Record<string, unknown>;
}

const ALL_METHODS = METHODS.map((method) => method.toLowerCase());

function walkExpress(stack: unknown[], prefix: string): AppRoute[] {
  const routes: AppRoute[] = [];
  for (const layer of stack as ExpressLayer[]) {
    if (layer.route) {
      const methods = Object.keys(layer.route.methods).filter((method) => layer.route?.methods[method]);
      // `app.all()` registers the route once per method Node knows: show it as the one route it is.
      const all = methods.includes('_all') || ALL_METHODS.every((method) => methods.includes(method));
      for (const path of pathsOf(layer.route.path)) {
        for (const method of all ? ['_all'] : methods) {
          const handle = layer.route.stack.findLast(
            (item) => all || item.method === undefined || item.method === method,
          )?.handle;
          routes.push({
            method: method === '_all' ? 'ALL' : method.toUpperCase(),
            path: joinPath(prefix, path),
            ...handlerOf({ handler: handle }),
          });
        }
      }
      continue;
    }
    const nested = layer[SUB_APP] ? routerOf(layer[SUB_APP])?.stack : layer.handle?.stack;
    if (!Array.isArray(nested)) continue;
    for (const mount of mountPaths(layer)) routes.push(...walkExpress(nested, joinPath(prefix, mount)));
  }
  return routes;
}

function pathsOf(path: MountPath): string[] {
  if (Array.isArray(path)) return path.flatMap(pathsOf);
  return [path instanceof RegExp ? String(path) : path];
}

/** Joins a mount prefix and a path as express matches them: `/api` + `/` answers `/api`. */
function joinPath(prefix: string, path: string): string {
  if (prefix === '' || prefix === '/') return path || '/';
  if (path === '/' || path === '') return prefix;
  return prefix.replace(/\/$/, '') + path;
}

/**
 * The mount paths of a nested router or sub-app: recorded by `prepareFrameworks`, kept by router 2.3+ as
 * `rawPath`, or else read back from Express 4's regexp (static segments and named params only).
 */
function mountPaths(layer: ExpressLayer): string[] {
  const known = layer[MOUNT] ?? layer.rawPath;
  if (known !== undefined) return pathsOf(known);
  const source = layer.regexp?.source ?? '';
  if (source === '^\\/?(?=\\/|$)' || source === '^\\/?$') return [''];
  const keys = [...(layer.keys ?? [])];
  const match = /^\^((?:\\\/[\w-]+|\\\/\(\?:\(\[\^\\\/]\+\?\)\)|\(\?:\\\/\(\[\^\/]\+\?\)\))+)/.exec(source);
  if (!match?.[1]) return [''];
  return [
    match[1]
      .replace(
        /\\\/\(\?:\(\[\^\\\/]\+\?\)\)|\(\?:\\\/\(\[\^\/]\+\?\)\)/g,
        () => `/:${keys.shift()?.name ?? 'param'}`,
      )
      .replaceAll('\\/', '/'),
  ];
}

/** Reads fastify's `printRoutes({ commonPrefix: false })` tree: one segment per line, methods in brackets. */
function parseFastifyTree(text: string): AppRoute[] {
  const routes: AppRoute[] = [];
  const parents: string[] = [];
  for (const line of text.split('\n')) {
    const match = /^([│├└─\s]*)(\S.*?)(?:\s+\(([A-Z, ]+)\))?$/.exec(line);
    if (!match?.[2]) continue;
    const depth = Math.floor((match[1]?.length ?? 0) / 4);
    const path = (parents[depth - 1] ?? '') + match[2];
    parents[depth] = path;
    parents.length = depth + 1;
    for (const method of match[3]?.split(',').map((item) => item.trim()) ?? []) {
      if (method !== 'HEAD') routes.push({ method, path });
    }
  }
  return routes;
}
