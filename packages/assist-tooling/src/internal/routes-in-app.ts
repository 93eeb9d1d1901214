// Runs in the child process: reads the routes off a loaded app object of a known framework.

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

/** Lists the routes of a hono, express (4 and 5) or fastify app; throws for anything else. */
export async function listAppRoutes(app: unknown): Promise<{ framework: string; routes: AppRoute[] }> {
  const value = app as Record<string, unknown>;
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
    const text = (value.printRoutes as (options: object) => string)({ commonPrefix: false });
    return { framework: 'fastify', routes: parseFastifyTree(text) };
  }
  const router = (value._router ?? value.router) as { stack?: unknown[] } | undefined;
  if (typeof value.use === 'function' && Array.isArray(router?.stack)) {
    return { framework: 'express', routes: walkExpress(router.stack, '') };
  }
  throw new Error('The app is not one assist can read routes from (hono, express, fastify).');
}

interface ExpressLayer {
  route?: { path: string | string[]; methods: Record<string, boolean>; stack: { handle: unknown }[] };
  handle?: { stack?: unknown[] };
  regexp?: RegExp;
  path?: string;
  matchers?: unknown[];
}

function walkExpress(stack: unknown[], prefix: string): AppRoute[] {
  const routes: AppRoute[] = [];
  for (const layer of stack as ExpressLayer[]) {
    if (layer.route) {
      const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
      const last = layer.route.stack.at(-1)?.handle;
      for (const path of paths) {
        for (const method of Object.keys(layer.route.methods)) {
          routes.push({
            method: method === '_all' ? 'ALL' : method.toUpperCase(),
            path: `${prefix}${path}` || '/',
            ...(nameOf(last) ? { handler: nameOf(last) } : {}),
          });
        }
      }
    } else if (Array.isArray(layer.handle?.stack)) {
      routes.push(...walkExpress(layer.handle.stack, prefix + mountPath(layer)));
    }
  }
  return routes;
}

/** The mount path of a nested router: Express 4 keeps only a regexp, Express 5 a path on some layers. */
function mountPath(layer: ExpressLayer): string {
  if (typeof layer.path === 'string' && layer.path !== '/') return layer.path;
  const source = layer.regexp?.source ?? '';
  if (source === '^\\/?(?=\\/|$)' || source === '^\\/?$') return '';
  const match = /^\^((?:\\\/[\w-]+|\\\/\(\?:\(\[\^\\\/]\+\?\)\))+)/.exec(source);
  return match?.[1] ? match[1].replaceAll('\\/', '/').replaceAll('(?:([^\\/]+?))', ':param') : '';
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
