import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { POSTGRES_URL, randomSchema } from '@herald/test-kit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanFixtures, copyFixtureApp, startAssistMcp } from './helpers.js';

const SCHEMA = randomSchema('assist_mcp');

let root: string;
let mcp: Awaited<ReturnType<typeof startAssistMcp>>;
const admin = new pg.Client({ connectionString: POSTGRES_URL });

const call = (name: string, args: Record<string, unknown> = {}) => mcp.call(name, args);

// biome-ignore lint/suspicious/noExplicitAny: tool answers are JSON, read field by field in the assertions.
async function json(name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const { text, isError } = await call(name, args);
  expect(isError, text).toBe(false);
  return JSON.parse(text);
}

beforeAll(async () => {
  root = copyFixtureApp('mcp-app');
  await admin.connect();
  await admin.query(`create schema ${SCHEMA}`);
  await admin.query(`
    create table ${SCHEMA}.users (id serial primary key, email text not null unique, name text);
    create table ${SCHEMA}.orders (id serial primary key, user_id int not null references ${SCHEMA}.users(id), total numeric(10,2));
    create index orders_user_idx on ${SCHEMA}.orders (user_id);
    insert into ${SCHEMA}.users (email, name) values ('ada@example.com', 'Ada'), ('alan@example.com', 'Alan'), ('grace@example.com', 'Grace');
    insert into ${SCHEMA}.orders (user_id, total) values (1, 12.50);`);
  mkdirSync(join(root, 'data'));
  const lite = new PGlite(join(root, 'data/pglite'));
  await lite.exec(
    `create table notes (id serial primary key, body text not null); insert into notes (body) values ('first note');`,
  );
  await lite.close();
  const url = `postgres://postgres:hunter2@127.0.0.1:5432/test?options=-c%20search_path%3D${SCHEMA}`;
  writeFileSync(
    join(root, '.env'),
    `DATABASE_URL=${url}\nAPP_URL=http://localhost:4123\nAPI_SECRET=s3cr3t-value\nMAIL_FROM=team@example.com\n`,
  );
  mcp = await startAssistMcp(root);
});

afterAll(async () => {
  await mcp?.client.close();
  await admin.query(`drop schema if exists ${SCHEMA} cascade`);
  await admin.end();
  cleanFixtures();
});

describe('assist mcp tools (over stdio, in a hono fixture app)', () => {
  it('lists every tool, read-only ones annotated so, execute only because the config turns it on', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'application-info',
      'browser-logs',
      'config-read',
      'current-time',
      'database-connections',
      'database-query',
      'database-schema',
      'execute',
      'get-absolute-url',
      'get-route',
      'last-error',
      'list-commands',
      'list-routes',
      'read-log-entries',
      'search-docs',
    ]);
    const writers = tools.filter((tool) => tool.annotations?.readOnlyHint !== true).map((tool) => tool.name);
    expect(writers).toEqual(['execute']);
    expect(tools.find((tool) => tool.name === 'database-query')?.inputSchema.required).toEqual(['query']);
  });

  it('application-info reports versions, frameworks, database engines and packages', async () => {
    const info = await json('application-info');
    expect(info).toMatchObject({
      name: 'mcp-app',
      module: 'esm',
      packageManager: 'pnpm',
      typescript: '5.9.3',
      frameworks: { hono: expect.stringMatching(/^4\./) },
    });
    expect(info.databases.engines.sort()).toEqual(['pglite', 'postgres']);
    expect(info.databases.packages).toHaveProperty('pg');
    expect(info.packages).toContainEqual(expect.objectContaining({ name: 'pino', direct: true }));
    // Not in node_modules: the version comes from pnpm-lock.yaml.
    expect(info.packages).toContainEqual({
      name: 'left-pad',
      version: '1.3.0',
      direct: true,
      lockfile: true,
    });
  });

  it('current-time gives one timestamp in the configured or the asked timezone', async () => {
    const paris = await call('current-time');
    expect(paris.text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0[12]:00 \(Europe\/Paris\)$/);
    expect((await call('current-time', { timezone: 'Asia/Kolkata' })).text).toMatch(
      /\+05:30 \(Asia\/Kolkata\)$/,
    );
    const drift = Math.abs(Date.parse(paris.text.split(' ')[0] ?? '') - Date.now());
    expect(drift).toBeLessThan(60_000);
    expect(await call('current-time', { timezone: 'Mars/Olympus' })).toMatchObject({ isError: true });
  });

  it('get-absolute-url uses APP_URL from .env and fills route params', async () => {
    expect((await call('get-absolute-url', { path: '/api/users/:id', params: { id: 7 } })).text).toBe(
      'http://localhost:4123/api/users/7',
    );
    expect(await call('get-absolute-url', { path: '/api/users/:id' })).toMatchObject({ isError: true });
  });

  it('last-error and read-log-entries read the pino log', async () => {
    const last = await json('last-error');
    expect(last).toMatchObject({ level: 'error', message: 'redis unavailable', file: 'logs/app.log' });
    expect(last.stack).toContain('ECONNREFUSED 127.0.0.1:6379');
    const warnings = await json('read-log-entries', { entries: 5, level: 'warn' });
    expect(warnings.entries.map((entry: { message: string }) => entry.message)).toEqual([
      'redis unavailable',
      'slow request',
    ]);
    expect(warnings.entries[1].fields).toEqual({ path: '/api/users', ms: 812 });
    const lastOne = await json('read-log-entries', { entries: 1 });
    expect(lastOne.entries).toHaveLength(1);
  });

  it('config-read shows the .env with secrets redacted by name and inside URLs', async () => {
    const env = await json('config-read', { key: 'env' });
    expect(env.API_SECRET).toBe('[redacted]');
    expect(env.MAIL_FROM).toBe('team@example.com');
    expect(env.DATABASE_URL).toMatch(/^postgres:\/\/postgres:\*\*\*@127\.0\.0\.1/);
    expect(JSON.stringify(await json('config-read'))).not.toContain('hunter2');
    expect(await json('config-read', { key: 'assist.execute.enabled' })).toBe(true);
    // A bare variable name, as agents ask for it.
    expect(await json('config-read', { key: 'APP_URL' })).toBe('http://localhost:4123');
    expect(await json('config-read', { key: 'API_SECRET' })).toBe('[redacted]');
    const missing = await call('config-read', { key: 'NOT_SET' });
    expect(missing).toMatchObject({ isError: true });
    expect(missing.text).toContain('No variable NOT_SET');
  });

  it('list-commands gives scripts as pnpm runs them, the app bins and installed CLIs', async () => {
    const commands = await json('list-commands');
    expect(commands.scripts.dev).toEqual({ run: 'pnpm run dev', command: 'node --watch src/server.ts' });
    expect(commands.bins).toEqual({ 'mcp-app': './src/cli.ts' });
    expect(commands.installed.items).toContain('tsc');
  });

  it('list-routes and get-route load the hono app in a child process', async () => {
    const all = await json('list-routes');
    expect(all.framework).toBe('hono');
    expect(all.items).toEqual([
      { method: 'GET', path: '/', handler: 'home' },
      { method: 'GET', path: '/api/users', handler: 'listUsers' },
      { method: 'GET', path: '/api/users/:id', handler: 'showUser' },
      { method: 'POST', path: '/api/users', handler: 'createUser' },
    ]);
    const posts = await json('list-routes', { filter: 'users', method: 'post' });
    expect(posts.items).toEqual([{ method: 'POST', path: '/api/users', handler: 'createUser' }]);
    const route = await json('get-route', { path: '/api/users/42', method: 'GET' });
    expect(route.routes).toEqual([{ method: 'GET', path: '/api/users/:id', handler: 'showUser' }]);
    expect(await call('get-route', { path: '/nowhere' })).toMatchObject({ isError: true });
    // The app's pino logger ran in the child and wrote to the app's log.
    const debug = await json('read-log-entries', { entries: 1 });
    expect(debug.entries[0]).toMatchObject({ level: 'debug', message: 'routes registered' });
  });

  it('execute runs code with the app imports, returns the last expression and never binds a port', async () => {
    const answer = await call('execute', {
      code: "import { app } from './src/app.ts';\nconst res = await app.request('/api/users/5');\nconsole.log('status', res.status);\nawait res.json()",
    });
    expect(answer.isError, answer.text).toBe(false);
    expect(answer.text).toContain("{ id: '5' }");
    expect(answer.text).toContain('[log] status 200');
    const listening = await call('execute', {
      code: "import { server } from './src/server.ts'\nserver.listening",
    });
    expect(listening.text).toBe('false');
    expect((await call('execute', { code: 'process.env.API_SECRET' })).text).toBe("'s3cr3t-value'");
    // The last expression is found by a parser, not by lines.
    expect((await call('execute', { code: 'const a = 2; a * 21' })).text).toBe('42');
    expect(await call('execute', { code: 'const a = ;' })).toEqual({
      isError: true,
      text: expect.stringMatching(/^The code does not parse as TypeScript: Unexpected token \(1:10\)$/),
    });
  });

  it('execute kills code that runs past its time limit', async () => {
    const started = Date.now();
    const answer = await call('execute', {
      code: 'await new Promise(() => setInterval(() => {}, 1000))',
      timeout: 1,
    });
    expect(answer).toMatchObject({ isError: true });
    expect(answer.text).toContain('Stopped after 1 s');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(readdirSync(root).filter((name) => name.startsWith('.assist-execute-'))).toEqual([]);
  });

  it('database-connections finds DATABASE_URL and the Drizzle PGlite config, without passwords', async () => {
    const connections = await json('database-connections');
    expect(connections).toEqual([
      expect.objectContaining({
        name: 'database',
        engine: 'postgres',
        default: true,
        host: '127.0.0.1',
        port: 5432,
        database: 'test',
        user: 'postgres',
        sources: ['env DATABASE_URL'],
      }),
      {
        name: 'drizzle',
        engine: 'pglite',
        default: false,
        sources: ['drizzle.config.ts'],
        path: join(root, 'data/pglite'),
      },
    ]);
    expect(JSON.stringify(connections)).not.toContain('hunter2');
  });

  it('database-query reads PostgreSQL with a row cap', async () => {
    const all = await json('database-query', { query: 'select name from users order by id' });
    expect(all).toEqual({
      connection: 'database',
      columns: ['name'],
      rows: [['Ada'], ['Alan'], ['Grace']],
      truncated: false,
    });
    const capped = await json('database-query', { query: 'select id from users order by id;', limit: 2 });
    expect(capped).toMatchObject({ rows: [[1], [2]], truncated: true });
  });

  it('database-query refuses writes on PostgreSQL, at the tool and at the database, and nothing changes', async () => {
    const refusals = [
      "insert into users (email) values ('eve@example.com')",
      'select 1; delete from users',
      'drop table orders',
      'with gone as (delete from users returning *) select * from gone',
    ];
    for (const query of refusals) {
      const answer = await call('database-query', { query });
      expect(answer.isError, query).toBe(true);
      expect(answer.text).toMatch(/^Refused/);
    }
    // Passes the lexical check; the read-only transaction refuses it.
    const engine = await call('database-query', { query: "select nextval('users_id_seq')" });
    expect(engine).toMatchObject({ isError: true });
    expect(engine.text).toMatch(/^Refused by the database: .*read-only transaction/);
    const count = await admin.query(`select count(*)::int as n, max(id) as top from ${SCHEMA}.users`);
    expect(count.rows[0]).toEqual({ n: 3, top: 3 });
    const next = await admin.query(`select last_value from ${SCHEMA}.users_id_seq`);
    expect(next.rows[0].last_value).toBe('3');
  });

  it('database-query reads PGlite and refuses its writes', async () => {
    const notes = await json('database-query', { query: 'select body from notes', connection: 'drizzle' });
    expect(notes.rows).toEqual([['first note']]);
    const write = await call('database-query', {
      query: "update notes set body = 'changed'",
      connection: 'drizzle',
    });
    expect(write).toMatchObject({ isError: true });
    const engine = await call('database-query', {
      query: "select nextval('notes_id_seq')",
      connection: 'drizzle',
    });
    expect(engine.text).toMatch(/^Refused by the database: .*read-only transaction/);
  });

  it('database-schema gives tables with keys and indexes, a summary and a filter', async () => {
    const full = await json('database-schema', { filter: SCHEMA });
    const users = full.items.find((table: { name: string }) => table.name === `${SCHEMA}.users`);
    expect(users).toMatchObject({ kind: 'table', primaryKey: ['id'] });
    expect(users.columns).toContainEqual({ name: 'email', type: 'text', nullable: false });
    expect(users.indexes).toContain(`UNIQUE INDEX users_email_key btree (email)`);
    const orders = full.items.find((table: { name: string }) => table.name === `${SCHEMA}.orders`);
    // pg_get_constraintdef names the target as the connection's search_path sees it.
    expect(orders.foreignKeys).toEqual(['FOREIGN KEY (user_id) REFERENCES users(id)']);
    expect(orders.indexes).toContain('INDEX orders_user_idx btree (user_id)');
    const summary = await json('database-schema', { filter: `${SCHEMA}.ord`, summary: true });
    expect(summary.items).toEqual([
      { name: `${SCHEMA}.orders`, columns: ['id integer', 'user_id integer', 'total numeric'] },
    ]);
    const lite = await json('database-schema', { connection: 'drizzle', summary: true });
    expect(lite).toMatchObject({
      engine: 'pglite',
      items: [{ name: 'notes', columns: ['id integer', 'body text'] }],
    });
  });
});
