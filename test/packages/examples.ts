import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort, until } from '@herald/test-kit';
import { startSmtpSink } from '../../packages/email-channel/test/smtp-sink.js';
import { startRocketChatDouble } from '../../packages/teamchat-channel/test/rocketchat-double.js';
import { runPlainPage } from './bell-page.js';
import type { Client } from './consumer.js';
import { sectionBlocks } from './readme.js';
import { repoRoot, runOk } from './workspace.js';

/** Servers and environment an example expects, started by the check and stopped after it. */
export interface Prepared {
  env: Record<string, string>;
  /** After the example ran: what it should have done to the servers, checked. */
  verify?(): void;
  stop(): Promise<void>;
}

export interface ExampleSpec {
  /** The README section whose first ts/js block is the example (default "Example"). */
  heading: string;
  /** The client the README installs with (default pnpm). */
  client?: Client;
  /** Packages the example imports besides this one: a user following the README installs them too. */
  alongside?: string[];
  /** The example is browser code: type-checked with the DOM library. */
  dom?: boolean;
  /** The package's main entry needs a browser to load; `import()`/`require()` in Node are not checked. */
  browserOnly?: boolean;
  /** Starts what the example talks to; its `env` is passed to the example. */
  prepare?: () => Promise<Prepared>;
  /**
   * For an example that serves until stopped: resolves once it answers as the README promises. The check then
   * sends SIGTERM and expects the example to stop by itself, with exit code 0.
   */
  serves?: (env: Record<string, string>, output: () => string) => Promise<void>;
  /** Run after the example, in the consumer project: the README's other promises (e.g. its CLI walkthrough). */
  also?(context: { consumer: string; name: string }): Promise<void>;
  /** The example cannot run as written here: the closest honest thing, run instead. */
  notRun?: { reason: string; instead(context: { consumer: string; name: string }): Promise<void> };
}

const withPort = async (): Promise<Prepared> => ({
  env: { PORT: String(await freePort()) },
  stop: async () => {},
});

/** The slice of @herald/realtime-server the notifications example needs: a real server for its broadcasts. */
interface RealtimeServerLike {
  listen(): Promise<number>;
  close(): Promise<void>;
}

const specs: Record<string, Partial<ExampleSpec>> = {
  // The README installs it with npm. Its example is the middleware of "Browser logs"; its walkthrough's first
  // command (`npx assist install --agents claude_code,codex`) runs too, in the consumer project.
  'assist-tooling': {
    heading: 'Browser logs',
    client: 'npm',
    // The MCP SDK's declarations name the DOM's HeadersInit; the README tells TypeScript users to add `dom`.
    dom: true,
    also: async ({ consumer }) => {
      const result = await runOk('npx', ['assist', 'install', '--agents', 'claude_code,codex'], {
        cwd: consumer,
      });
      for (const file of ['CLAUDE.md', 'AGENTS.md', '.mcp.json', '.codex/config.toml', 'assist.json']) {
        if (!existsSync(join(consumer, file)))
          throw new Error(`assist install wrote no ${file}\n${result.stdout}`);
      }
      const mcp = JSON.parse(readFileSync(join(consumer, '.mcp.json'), 'utf8')) as { mcpServers?: object };
      if (!mcp.mcpServers || !('assist' in mcp.mcpServers)) throw new Error('.mcp.json has no assist server');
    },
  },
  // Browser code: Alpine needs a DOM at import, so Node cannot run the bundler example, which needs a bundler
  // too: it is type-checked (DOM library, @types/alpinejs as the README says). What runs instead is the README's
  // other example, "A plain page", as written, in headless Chromium against the installed package's files.
  'notification-bell': {
    heading: 'With a bundler',
    alongside: ['@types/alpinejs'],
    dom: true,
    browserOnly: true,
    notRun: {
      reason: 'needs a browser and a bundler',
      instead: async ({ consumer, name }) => {
        const markup = sectionBlocks(
          join(repoRoot, 'packages/notification-bell/README.md'),
          'A plain page',
        ).find((block) => block.lang === 'html');
        if (!markup) throw new Error('the README has no html block under "A plain page"');
        await runPlainPage({ consumer, name, markup: markup.code });
      },
    },
  },
  // Serves until SIGTERM (its own handler closes the server); the check asks it for a route the HTTP handler
  // answers, then stops it.
  'realtime-server': {
    prepare: async () => ({
      env: { PORT: String(await freePort()), SHOP_SECRET: 'shop-secret' },
      stop: async () => {},
    }),
    serves: async (env, output) => {
      await until(
        async () => {
          if (!output().includes('listening on')) throw new Error('not listening yet');
        },
        { limitMs: 60_000 },
      );
      const response = await fetch(`http://127.0.0.1:${env.PORT}/anything`);
      const body = await response.text();
      if (response.status !== 404 || body !== '{"error":"Not found"}') {
        throw new Error(`GET /anything answered ${response.status} ${body}`);
      }
    },
  },
  'http-api': { prepare: withPort },
  // Redis at 127.0.0.1:6379 (REDIS_URL): the example uses its own `shop:` keys and removes its share on close.
  'scaling-redis': {
    prepare: async () => ({
      env: { PORT: String(await freePort()), REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' },
      stop: async () => {},
    }),
  },
  // The example writes an app table in schema `herald` of the machine's PostgreSQL (database test): dropped
  // before and after, so every run starts from an empty table as a new user's would.
  'app-store-postgres': {
    prepare: async () => {
      const drop = () =>
        runOk(
          'psql',
          ['-h', '127.0.0.1', '-U', 'postgres', '-d', 'test', '-qc', 'DROP SCHEMA IF EXISTS herald CASCADE'],
          { cwd: repoRoot },
        );
      await drop();
      // The README's example encrypts app secrets at rest with a key from the environment, as a user sets it.
      const key = randomBytes(32).toString('hex');
      return { env: { APP_STORE_KEY: key }, stop: async () => void (await drop()) };
    },
  },
  // The broadcasts go to a real Herald real-time server (the workspace build), on a free port.
  notifications: {
    prepare: async () => {
      const url = pathToFileURL(join(repoRoot, 'packages/realtime-server/dist/index.js')).href;
      const { createRealtimeServer } = (await import(url)) as {
        createRealtimeServer(options: object): RealtimeServerLike;
      };
      const server = createRealtimeServer({
        apps: [{ id: 'app', key: 'key', secret: 'secret' }],
        port: 0,
        httpHandler: () => new Response('{}', { status: 404 }),
      });
      const port = await server.listen();
      return { env: { REALTIME_URL: `http://127.0.0.1:${port}` }, stop: () => server.close() };
    },
  },
  // A real SMTP server on loopback (the `smtp-server` package) takes the example's email.
  'email-channel': {
    prepare: async () => {
      const sink = await startSmtpSink();
      return {
        env: { SMTP_URL: `smtp://127.0.0.1:${sink.port}` },
        verify: () => {
          const to = sink.received.flatMap((mail) => mail.to);
          if (to.join() !== 'ada@example.com')
            throw new Error(`the SMTP server received mail for ${to.join()}`);
        },
        stop: () => sink.stop(),
      };
    },
  },
  // The client connects to a real Herald real-time server (the workspace build) whose app keeps history.
  recovery: {
    alongside: ['pusher-js'],
    // pusher-js's typings name the DOM's types (Document), whatever runtime the example runs in.
    dom: true,
    prepare: async () => {
      const url = pathToFileURL(join(repoRoot, 'packages/realtime-server/dist/index.js')).href;
      const { createRealtimeServer } = (await import(url)) as {
        createRealtimeServer(options: object): RealtimeServerLike;
      };
      const server = createRealtimeServer({
        apps: [{ id: 'app', key: 'app-key', secret: 'app-secret', history: { enabled: true } }],
        host: '127.0.0.1',
        port: 0,
      });
      const port = await server.listen();
      return { env: { REALTIME_PORT: String(port) }, stop: () => server.close() };
    },
  },
  // No Rocket.Chat runs here: the closest honest thing is the package's own loopback double of Rocket.Chat's
  // incoming-webhook endpoint (test/rocketchat-double.ts, which lists the rules it follows), with two hooks that
  // allow a destination override, as the example's routes need.
  'teamchat-channel': {
    prepare: async () => {
      const double = await startRocketChatDouble([
        { id: 'main', token: 'main-token', overrideDestinationChannel: true },
        { id: 'alerts', token: 'alerts-token', overrideDestinationChannel: true },
      ]);
      return {
        env: { TEAMCHAT_WEBHOOK: double.hookUrl('main'), TEAMCHAT_ALERTS_WEBHOOK: double.hookUrl('alerts') },
        verify: () => {
          // db-1 to both instances, db-2 on demand, and the direct post.
          const hooks = double.received.map((post) => post.hookId).sort();
          if (hooks.join() !== 'alerts,main,main,main') throw new Error(`the hooks received ${hooks.join()}`);
        },
        stop: () => double.close(),
      };
    },
  },
};

/** The spec for a package folder; a package without one runs the first block under "Example", to its end. */
export function exampleSpecOf(folder: string): ExampleSpec {
  return { heading: 'Example', ...specs[folder] };
}

/** Runs the compiled example in the consumer project; answers its standard output. */
export async function runExample(options: {
  consumer: string;
  script: string;
  spec: ExampleSpec;
}): Promise<string> {
  const { consumer, script, spec } = options;
  const prepared = spec.prepare ? await spec.prepare() : { env: {}, stop: async () => {} };
  try {
    const child = spawn(process.execPath, [script], {
      cwd: consumer,
      env: { ...process.env, ...prepared.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    const describe = () => `stdout:\n${stdout}\nstderr:\n${stderr}`;
    if (spec.serves) {
      const serving = spec.serves(prepared.env, () => stdout);
      const early = exited.then(([code]) => {
        throw new Error(`the example exited (${code}) before it served\n${describe()}`);
      });
      try {
        await Promise.race([serving, early]);
      } catch (error) {
        child.kill('SIGKILL');
        throw new Error(`${String(error)}\n${describe()}`);
      }
      child.kill('SIGTERM');
    }
    const limit = setTimeout(() => child.kill('SIGKILL'), 120_000);
    const [code, signal] = await exited;
    clearTimeout(limit);
    if (code !== 0) throw new Error(`the example exited with ${code ?? signal}\n${describe()}`);
    prepared.verify?.();
    return stdout;
  } finally {
    await prepared.stop();
  }
}
