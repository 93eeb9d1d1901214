import { cpSync, existsSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type AssistMcp, copyFixture, mcpPool } from './helpers.js';

type Mcp = AssistMcp;
const pool = mcpPool();
const mcpIn = pool.start;

afterAll(pool.closeAll);

interface Hit {
  package: string;
  version: string;
  file: string;
  heading: string;
  kind: string;
  snippet: string;
  uri: string;
}
interface Answer {
  hits: Hit[];
  notes?: string[];
  index: { scope: string; packages: number; fromCache: boolean; builtAt: string };
}

async function search(mcp: Mcp, args: Record<string, unknown>): Promise<Answer> {
  const { text, isError } = await mcp.call('search-docs', args);
  expect(isError, text).toBe(false);
  return JSON.parse(text);
}

describe('search-docs (over stdio, in a fixture app with acme-widgets 2.1.0 installed)', () => {
  it('finds the JSDoc of the installed version of a function, not the text of another version', async () => {
    const mcp = await mcpIn(copyFixture('search-app'));
    const answer = await search(mcp, { query: 'createWidget' });
    const [top] = answer.hits;
    expect(top).toEqual({
      package: 'acme-widgets',
      version: '2.1.0',
      file: 'dist/widget.d.ts',
      heading: 'function createWidget(options: WidgetOptions): Widget',
      kind: 'api',
      snippet: expect.stringContaining('Since 2.0 the widget mounts lazily'),
      uri: 'assist://docs/acme-widgets/dist/widget.d.ts',
    });
    expect(answer.hits.every((hit) => hit.version === '2.1.0' || hit.package !== 'acme-widgets')).toBe(true);
    // README, docs/ and the installed version's CHANGELOG section are indexed too.
    expect((await search(mcp, { query: 'dark mode' })).hits[0]).toMatchObject({
      file: 'docs/theming.md',
      heading: 'Theming › Dark mode',
      kind: 'docs',
    });
    expect((await search(mcp, { query: 'resize without re-creating' })).hits).toContainEqual(
      expect.objectContaining({ file: 'CHANGELOG.md', heading: 'Changelog › 2.1.0', kind: 'changelog' }),
    );
    // Declaration files pulled in with `/// <reference path>` are read too.
    expect((await search(mcp, { query: 'ACME_DEFAULT_ACCENT' })).hits[0]).toMatchObject({
      file: 'dist/globals.d.ts',
      heading: 'const ACME_DEFAULT_ACCENT: string',
    });
    // 1.4.0's JSDoc (other-versions/) and its CHANGELOG section are not part of the installed version.
    expect((await search(mcp, { query: 'spinnerStyle' })).hits).toEqual([]);
    expect((await search(mcp, { query: 'loading indicator' })).hits).toEqual([]);
    // The hit's URI reads the whole file as an MCP resource.
    const resource = await mcp.client.readResource({ uri: top?.uri ?? '' });
    expect(resource.contents[0]).toMatchObject({ mimeType: 'text/x-typescript' });
    expect(JSON.stringify(resource.contents[0])).toContain('export declare function resizeWidget');
    await expect(
      mcp.client.readResource({ uri: 'assist://docs/acme-widgets/../../package.json' }),
    ).rejects.toThrow();
  });

  it('limits hits to the packages asked for and says which of them it cannot search', async () => {
    const mcp = await mcpIn(copyFixture('search-app'));
    const all = await search(mcp, { query: 'widget theme' });
    expect(new Set(all.hits.map((hit) => hit.package))).toEqual(new Set(['acme-widgets', 'acme-store']));
    const store = await search(mcp, {
      query: 'widget theme',
      packages: ['acme-store', 'acme-internal', 'nope'],
    });
    expect(store.hits.length).toBeGreaterThan(0);
    expect(store.hits.every((hit) => hit.package === 'acme-store')).toBe(true);
    expect(store.notes).toEqual([
      'acme-internal is installed but not a direct dependency: search with scope "all".',
      'nope is not installed in this project.',
    ]);
    // Transitive packages only with scope "all".
    expect((await search(mcp, { query: 'flux capacitor' })).hits).toEqual([]);
    const everything = await search(mcp, { query: 'flux capacitor', scope: 'all' });
    expect(everything.hits[0]).toMatchObject({ package: 'acme-internal', version: '0.3.0' });
    expect(everything.index).toMatchObject({ scope: 'all', packages: 3 });
  });

  it('caches the index in .assist/docs, reuses it after a restart and rebuilds it when the lockfile changes', async () => {
    const root = copyFixture('search-app');
    const first = await mcpIn(root);
    const built = await search(first, { query: 'createWidget' });
    expect(built.index).toMatchObject({ scope: 'direct', packages: 2, fromCache: false });
    expect(existsSync(join(root, '.assist/docs/direct.json'))).toBe(true);

    const second = await mcpIn(root);
    const reused = await search(second, { query: 'createWidget' });
    expect(reused.index).toEqual({ ...built.index, fromCache: true });
    expect(reused.hits).toEqual(built.hits);

    // `npm install acme-widgets@1.4.0`: node_modules and the lockfile change; the running server notices.
    renameSync(join(root, 'node_modules/acme-widgets'), join(root, 'acme-widgets-2'));
    cpSync(join(root, 'other-versions/acme-widgets'), join(root, 'node_modules/acme-widgets'), {
      recursive: true,
    });
    const lock = join(root, 'package-lock.json');
    writeFileSync(lock, readFileSync(lock, 'utf8').replace('"version": "2.1.0"', '"version": "1.4.0"'));
    const rebuilt = await search(second, { query: 'createWidget' });
    expect(rebuilt.index.fromCache).toBe(false);
    expect(rebuilt.index.builtAt > built.index.builtAt).toBe(true);
    expect(rebuilt.hits[0]).toMatchObject({
      version: '1.4.0',
      file: 'lib/index.d.ts',
      snippet: expect.stringContaining('synchronously'),
    });
    expect(rebuilt.hits.some((hit) => hit.snippet.includes('lazily'))).toBe(false);

    // A lockfile change alone (another package added) also rebuilds.
    writeFileSync(
      lock,
      readFileSync(lock, 'utf8').replace(
        '"packages": {',
        '"packages": {\n    "node_modules/left-pad": { "version": "1.3.0" },',
      ),
    );
    const third = await mcpIn(root);
    const afterLock = await search(third, { query: 'createWidget' });
    expect(afterLock.index.fromCache).toBe(false);
    expect(afterLock.index.builtAt > rebuilt.index.builtAt).toBe(true);
  });

  it("builds the first index of a real app's direct dependencies in seconds, after the handshake (this package's 30-odd)", async () => {
    const root = copyFixture('search-app');
    const own = fileURLToPath(new URL('..', import.meta.url));
    rmSync(join(root, 'node_modules'), { recursive: true });
    rmSync(join(root, 'package-lock.json'));
    symlinkSync(join(own, 'node_modules'), join(root, 'node_modules'), 'dir');
    cpSync(join(own, 'package.json'), join(root, 'package.json'));
    const started = performance.now();
    const mcp = await mcpIn(root);
    // The handshake is done and the server answers while the index is still being built.
    expect((await mcp.client.listTools()).tools.length).toBe(14);
    expect(existsSync(join(root, '.assist/docs/direct.json'))).toBe(false);
    const answer = await search(mcp, { query: 'serve static files', packages: ['express'] });
    const seconds = (performance.now() - started) / 1000;
    expect(answer.index.packages).toBeGreaterThan(25);
    expect(answer.hits[0]).toMatchObject({ package: 'express', version: expect.stringMatching(/^5\./) });
    // Generous for a busy shared machine; it takes about one second on an idle one.
    expect(seconds).toBeLessThan(20);
  });
});
