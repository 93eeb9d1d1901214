// The child process in which every tool that runs the app's code or a database driver does its work, so a
// slow query, a hanging import or a crash never takes the MCP server down. The parent sends one task over
// IPC, waits for one answer, and kills this process when its time is up.
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Server } from 'node:net';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { formatWithOptions, inspect } from 'node:util';
import { queryDatabase, readDatabaseSchema } from '../database/engines.js';
import { type ChildTask, executeFile } from './child.js';
import { lastFastifyApp, listAppRoutes, prepareFrameworks } from './routes-in-app.js';
import { snippetModule } from './snippet.js';

const logs: string[] = [];
const MAX_LOG_LINES = 200;

// The app's console output must not reach the parent's stdout (the MCP protocol stream): collect it instead.
for (const level of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
  console[level] = (...args: unknown[]) => {
    if (logs.length < MAX_LOG_LINES) logs.push(`[${level}] ${formatWithOptions({ depth: 3 }, ...args)}`);
  };
}

// Importing an app often starts its server; a tool call must never bind the app's port. The server answers
// as if it were listening (callback, 'listening' event, the asked address) so an app that awaits its start
// (fastify's `await app.listen()` at the top level) finishes loading instead of hanging.
// Servers the app asked to listen, so an entry that only calls `app.listen()` still gives its app.
const listening: Server[] = [];
Server.prototype.listen = function listen(this: Server, ...args: unknown[]) {
  listening.push(this);
  const options = (typeof args[0] === 'object' && args[0] !== null ? args[0] : {}) as {
    port?: number;
    host?: string;
    path?: string;
  };
  const port = typeof args[0] === 'number' || typeof args[0] === 'string' ? Number(args[0]) : options.port;
  const host = typeof args[1] === 'string' ? args[1] : (options.host ?? '127.0.0.1');
  const address = options.path ?? {
    address: host,
    family: host.includes(':') ? 'IPv6' : 'IPv4',
    port: Number.isFinite(port) ? Number(port) : 0,
  };
  this.address = () => address;
  const callback = args.findLast((arg) => typeof arg === 'function') as (() => void) | undefined;
  if (callback) this.once('listening', callback);
  setImmediate(() => this.emit('listening'));
  return this;
};

process.once('message', (task: ChildTask) => {
  run(task).then(
    (value) => reply({ ok: true, value, logs }),
    (error: unknown) =>
      reply({
        ok: false,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        logs,
      }),
  );
});

function reply(message: unknown): void {
  process.send?.(message, () => process.exit(0));
}

async function run(task: ChildTask): Promise<unknown> {
  switch (task.kind) {
    case 'routes':
      prepareFrameworks(createRequire(join(task.root, 'package.json')));
      return listAppRoutes(await loadApp(task.root, task.entry));
    case 'execute':
      return execute(task.root, task.code);
    case 'query':
      return queryDatabase(await driverLoader(task.root), task.connection, task.sql, task.options);
    case 'schema':
      return readDatabaseSchema(await driverLoader(task.root), task.connection);
  }
}

async function jitiFor(root: string) {
  const { createJiti } = await import('jiti');
  return createJiti(pathToFileURL(join(root, 'index.ts')).href, { interopDefault: true, fsCache: false });
}

/**
 * Imports the app's module and finds the app object: a named export, `app`, `default`, a factory's result, or
 * (for an entry that exports nothing and only starts the server) the app it passed to `listen()`.
 */
async function loadApp(root: string, entry: string): Promise<unknown> {
  const [file = entry, name] = entry.split('#');
  const jiti = await jitiFor(root);
  const mod = (await jiti.import(resolve(root, file))) as Record<string, unknown>;
  let app = name !== undefined ? mod[name] : (mod.app ?? mod.default ?? mod.server ?? mod.createApp);
  if (typeof app === 'function' && !looksLikeApp(app)) app = await (app as () => unknown)();
  if (name === undefined && !isApp(app)) app = (await listenedApp()) ?? app;
  if (app === undefined || app === null || (name === undefined && !isApp(app)))
    throw new Error(
      `${entry} exports no app (tried ${name ?? 'app, default, server, createApp'}) and started none with listen()`,
    );
  return app;
}

const isApp = (value: unknown): value is object =>
  (typeof value === 'function' || (typeof value === 'object' && value !== null)) && looksLikeApp(value);

const LISTEN_WAIT_MS = 3_000;

/**
 * The app an entry started: an express app is the request listener of the server it listens on; a fastify
 * app is the last instance made. Waits a little, since many entries listen after an awaited start-up step.
 */
async function listenedApp(): Promise<unknown> {
  const deadline = Date.now() + LISTEN_WAIT_MS;
  for (;;) {
    for (const server of listening.toReversed()) {
      const listener = server.listeners('request')[0];
      if (isApp(listener)) return listener;
    }
    const fastify = lastFastifyApp();
    if (fastify !== undefined) return fastify;
    if (Date.now() > deadline) return undefined;
    await new Promise((done) => setTimeout(done, 50));
  }
}

function looksLikeApp(value: object): boolean {
  return 'fetch' in value || 'use' in value || 'route' in value || 'register' in value;
}

/**
 * Runs a snippet as the app would: its imports resolved from the project root, top-level await allowed, and
 * the value of the last expression returned (found by a TypeScript parser, see `snippet.ts`).
 */
async function execute(root: string, code: string): Promise<{ result: string; logs: string[] }> {
  const jiti = await jitiFor(root);
  const module = snippetModule(code);
  if (!module.ok) {
    // The parser's message says where; a stack of assist's own frames would only hide it.
    const error = new Error(module.error);
    error.stack = module.error;
    throw error;
  }
  // A real file in the project so relative imports resolve as they do in the app.
  const file = executeFile(root, process.pid);
  writeFileSync(file, module.source);
  try {
    const fn = (await jiti.import(file, { default: true })) as () => Promise<unknown>;
    const value = await fn();
    return {
      result: inspect(value, { depth: 4, maxArrayLength: 100, maxStringLength: 4000, breakLength: 100 }),
      logs,
    };
  } finally {
    rmSync(file, { force: true });
  }
}

export type DriverLoader = (name: string) => Promise<unknown>;

/** Loads a database driver from the project's own `node_modules` first, then from assist's optional peers. */
async function driverLoader(root: string): Promise<DriverLoader> {
  const require = createRequire(join(root, 'package.json'));
  return async (name) => {
    let path: string | undefined;
    try {
      path = require.resolve(name);
    } catch {
      // Not installed in the project; assist's own optional peer dependency is the fallback below.
    }
    try {
      return path !== undefined ? await import(pathToFileURL(path).href) : await import(name);
    } catch (error) {
      throw new Error(
        `The ${name} package is needed for this database; install it in the project (npm i -D ${name}).`,
        {
          cause: error,
        },
      );
    }
  };
}
