import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type AssistMcp, copyFixture, copyFixtureApp, mcpPool } from './helpers.js';

type Mcp = AssistMcp;
const pool = mcpPool();
const mcpIn = pool.start;

afterAll(pool.closeAll);

async function json(
  mcp: Mcp,
  name: string,
  args: Record<string, unknown> = {},
  // biome-ignore lint/suspicious/noExplicitAny: tool answers are JSON, read field by field in the assertions.
): Promise<Record<string, any>> {
  const { text, isError } = await mcp.call(name, args);
  expect(isError, text).toBe(false);
  return JSON.parse(text);
}

/** A fixture whose `node_modules` holds only the given packages, linked from this package's dev dependencies. */
function fixtureWith(name: string, packages: Record<string, string>): string {
  const root = copyFixture(name);
  mkdirSync(join(root, 'node_modules'));
  for (const [as, installed] of Object.entries(packages)) {
    const dir = fileURLToPath(new URL(`../node_modules/${installed}`, import.meta.url));
    symlinkSync(realpathSync(dir), join(root, 'node_modules', as), 'dir');
  }
  return root;
}

// The same app source for both majors: what a user sees must not depend on how each one stores its routes.
const EXPRESS_ROUTES = [
  { method: 'GET', path: '/', handler: 'home' },
  { method: 'GET', path: '/health', handler: 'health' },
  { method: 'PUT', path: '/health' },
  { method: 'ALL', path: '/legacy', handler: 'legacy' },
  { method: 'GET', path: '/api/users', handler: 'listUsers' },
  { method: 'GET', path: '/api/users/:id', handler: 'showUser' },
  { method: 'POST', path: '/api/users', handler: 'createUser' },
  { method: 'GET', path: '/api/users/:userId/posts', handler: 'listPosts' },
  { method: 'GET', path: '/api/users/:userId/posts/:postId', handler: 'showPost' },
  { method: 'DELETE', path: '/admin/sessions/:sessionId', handler: 'revokeSession' },
  { method: 'GET', path: '/v2/status', handler: 'status' },
  { method: 'GET', path: '/about', handler: 'about' },
  { method: 'GET', path: '/about-us', handler: 'about' },
];

describe.each([
  ['express 5', () => fixtureWith('express-app', { express: 'express' })],
  ['express 4', () => fixtureWith('express-app', { express: 'express-4' })],
])('list-routes and get-route in an %s app', (_major, makeRoot) => {
  it('list every route with mount prefixes, params, handler names, and app.all() as ALL', async () => {
    const mcp = await mcpIn(makeRoot());
    // Each call loads the app in its own child process: run them side by side.
    const [all, posts, deletes, route] = await Promise.all([
      json(mcp, 'list-routes'),
      json(mcp, 'list-routes', { filter: 'posts', method: 'get' }),
      json(mcp, 'list-routes', { method: 'DELETE' }),
      json(mcp, 'get-route', { path: '/api/users/7/posts/3', method: 'GET' }),
    ]);
    expect(all).toEqual({
      framework: 'express',
      entry: 'src/app.ts',
      items: EXPRESS_ROUTES,
      total: EXPRESS_ROUTES.length,
    });
    expect(posts.items.map((route: { path: string }) => route.path)).toEqual([
      '/api/users/:userId/posts',
      '/api/users/:userId/posts/:postId',
    ]);
    // ALL answers for every method.
    expect(deletes.items.map((route: { path: string }) => route.path)).toEqual([
      '/legacy',
      '/admin/sessions/:sessionId',
    ]);
    expect(route.routes).toEqual([
      { method: 'GET', path: '/api/users/:userId/posts/:postId', handler: 'showPost' },
    ]);
    expect(await mcp.call('get-route', { path: '/api/users/7', method: 'PATCH' })).toMatchObject({
      isError: true,
    });
  });
});

describe('list-routes and get-route in an Express 4 app whose entry only calls app.listen()', () => {
  it('load src/main.ts with listen intercepted, read the app it started, and say which entry that was', async () => {
    // A CommonJS, non-strict Nx-style API: src/main.ts builds the app, listens, and exports nothing.
    const mcp = await mcpIn(fixtureWith('trip-express-listen', { express: 'express-4' }));
    const [all, route] = await Promise.all([
      json(mcp, 'list-routes'),
      json(mcp, 'get-route', { path: '/api/orders/17' }),
    ]);
    expect(all).toEqual({
      framework: 'express',
      entry: 'src/main.ts',
      items: [
        { method: 'GET', path: '/api', handler: 'welcome' },
        { method: 'GET', path: '/api/orders', handler: 'listOrders' },
        { method: 'GET', path: '/api/orders/:orderId', handler: 'showOrder' },
        { method: 'POST', path: '/api/orders', handler: 'createOrder' },
      ],
      total: 4,
    });
    expect(route).toEqual({
      framework: 'express',
      entry: 'src/main.ts',
      routes: [{ method: 'GET', path: '/api/orders/:orderId', handler: 'showOrder' }],
    });
  });

  it('name the entry and what was tried when it neither exports an app nor starts one', async () => {
    const root = fixtureWith('trip-express-listen', { express: 'express-4' });
    writeFileSync(join(root, 'src/main.ts'), "import express from 'express';\nexpress();\n");
    const mcp = await mcpIn(root);
    const answer = await mcp.call('list-routes');
    expect(answer).toEqual({
      isError: true,
      text: expect.stringMatching(
        /^Could not read the routes of src\/main\.ts: .*exports no app .* and started none with listen\(\)/,
      ),
    });
  });
});

describe('list-routes and get-route in a fastify app', () => {
  it('list routes of encapsulated plugins with their prefix, an app that awaits listen() at the top level included', async () => {
    const mcp = await mcpIn(copyFixtureApp('fastify-app'));
    const all = await json(mcp, 'list-routes');
    expect(all).toEqual({
      framework: 'fastify',
      entry: 'src/server.ts',
      items: [
        { method: 'GET', path: '/', handler: 'home' },
        { method: 'GET', path: '/search', handler: 'search' },
        { method: 'POST', path: '/search', handler: 'search' },
        { method: 'GET', path: '/files/*', handler: 'download' },
        { method: 'GET', path: '/api/users', handler: 'listUsers' },
        { method: 'GET', path: '/api/users/:id', handler: 'showUser' },
        { method: 'POST', path: '/api/users', handler: 'createUser' },
        { method: 'DELETE', path: '/api/users/:id/sessions/:sessionId', handler: 'revokeSession' },
      ],
      total: 8,
    });
    const route = await json(mcp, 'get-route', { path: '/files/reports/2024.pdf' });
    expect(route.routes).toEqual([{ method: 'GET', path: '/files/*', handler: 'download' }]);
    const session = await json(mcp, 'get-route', { path: '/api/users/4/sessions/9', method: 'delete' });
    expect(session.routes).toEqual([
      { method: 'DELETE', path: '/api/users/:id/sessions/:sessionId', handler: 'revokeSession' },
    ]);
  });
});

describe('list-routes and get-route in a Next.js app', () => {
  it('read the app and pages folders: groups dropped, dynamic and catch-all segments as params, private folders skipped', async () => {
    // Next.js routes are read from the file system, never by loading next: its package.json is all it takes.
    const root = copyFixture('next-app');
    mkdirSync(join(root, 'node_modules/next'), { recursive: true });
    writeFileSync(join(root, 'node_modules/next/package.json'), '{ "name": "next", "version": "15.5.0" }');
    const mcp = await mcpIn(root);
    const all = await json(mcp, 'list-routes');
    expect(all).toEqual({
      framework: 'next',
      items: [
        { method: 'GET', path: '/', handler: 'app/page.tsx' },
        { method: 'GET', path: '/about', handler: 'app/(marketing)/about/page.tsx' },
        { method: 'ALL', path: '/api/health', handler: 'pages/api/health.ts' },
        { method: 'GET', path: '/api/users', handler: 'app/api/users/route.ts' },
        { method: 'POST', path: '/api/users', handler: 'app/api/users/route.ts' },
        { method: 'DELETE', path: '/api/users/:id', handler: 'app/api/users/[id]/route.ts' },
        { method: 'GET', path: '/api/users/:id', handler: 'app/api/users/[id]/route.ts' },
        { method: 'GET', path: '/blog/:slug', handler: 'app/blog/[slug]/page.tsx' },
        { method: 'GET', path: '/docs/:path*', handler: 'app/docs/[[...path]]/page.tsx' },
        { method: 'GET', path: '/legacy', handler: 'pages/legacy/index.tsx' },
        { method: 'GET', path: '/legacy/:id', handler: 'pages/legacy/[id].tsx' },
        { method: 'GET', path: '/shop/:segments+', handler: 'app/shop/[...segments]/page.tsx' },
      ],
      total: 12,
    });
    const docs = await json(mcp, 'get-route', { path: '/docs' });
    expect(docs.routes).toEqual([
      { method: 'GET', path: '/docs/:path*', handler: 'app/docs/[[...path]]/page.tsx' },
    ]);
    expect((await json(mcp, 'get-route', { path: '/docs/guides/install' })).routes).toHaveLength(1);
    expect((await json(mcp, 'get-route', { path: '/shop/shoes/red' })).routes).toHaveLength(1);
    expect(await mcp.call('get-route', { path: '/shop' })).toMatchObject({ isError: true });
    const remove = await json(mcp, 'get-route', { path: '/api/users/12', method: 'DELETE' });
    expect(remove.routes).toEqual([
      { method: 'DELETE', path: '/api/users/:id', handler: 'app/api/users/[id]/route.ts' },
    ]);
  });
});
