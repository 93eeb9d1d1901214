import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFreshProject, type FreshProject, sh } from './fresh-project.js';

// A new user's first steps, from the packed tarball: a fresh Vite 8 project (pnpm, outside this workspace)
// installs the bell, builds the README's bundler snippet as written, and type-checks it with
// `skipLibCheck: false`. Everything comes from the npm registry except the bell itself; nothing in the
// workspace is touched (the tarball and the project live in a temp dir).

describe('a fresh Vite project with the packed bell', () => {
  let fresh: FreshProject;
  let project: string;
  let tarball: string;
  let dir: string;

  beforeAll(async () => {
    fresh = await createFreshProject(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Fresh</title></head><body>
<div data-notification-bell data-options='{"userId":"alice"}'></div>
<script type="module" src="/src/main.ts"></script></body></html>`,
    );
    ({ project, tarball } = fresh);
    dir = dirname(tarball);
  }, 300_000);

  afterAll(async () => {
    await fresh?.remove();
  });

  it('ships only what users need: code, declarations, styles, README, and alpinejs as a peer', async () => {
    const { stdout } = await sh('tar', ['tzf', tarball], dir);
    const files = stdout.trim().split('\n');
    expect(files.filter((file) => /\.map$|tsbuildinfo|\/src\//.test(file))).toEqual([]);
    expect(files).toEqual(
      expect.arrayContaining([
        'package/dist/index.js',
        'package/dist/index.d.ts',
        'package/dist/alpine.d.ts',
        'package/dist/notification-bell.js',
        'package/dist/notification-bell.css',
        'package/README.md',
      ]),
    );
    const installed = join(project, 'node_modules', '@herald', 'notification-bell');
    const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as {
      peerDependencies?: Record<string, string>;
      dependencies?: Record<string, string>;
    };
    expect(manifest.peerDependencies).toHaveProperty('alpinejs');
    expect(manifest.dependencies).not.toHaveProperty('alpinejs');
    const declarations = await readFile(join(installed, 'dist', 'index.d.ts'), 'utf8');
    expect(declarations).not.toMatch(/\.css['"]/);
  });

  it('builds the README snippet as written with Vite 8', async () => {
    await sh(fresh.bin('vite'), ['build'], project);
    const assets = await readdir(join(project, 'dist', 'assets'));
    expect(assets.some((name) => name.endsWith('.css'))).toBe(true);
    const scripts = assets.filter((name) => name.endsWith('.js'));
    const code = await Promise.all(
      scripts.map((name) => readFile(join(project, 'dist', 'assets', name), 'utf8')),
    );
    // Alpine and the bell are in; pusher-js is in a chunk of its own, not in the page's first script.
    const html = await readFile(join(project, 'dist', 'index.html'), 'utf8');
    const first = scripts.findIndex((name) => html.includes(name));
    expect(code[first]).toContain('notificationBell');
    expect(code[first]).not.toContain('pusher:ping');
    expect(code.filter((text) => text.includes('pusher:ping'))).toHaveLength(1);
  });

  it('type-checks with TypeScript 7 and skipLibCheck false, with nothing extra installed', async () => {
    const result = await sh(
      join(project, 'node_modules', '.bin', 'tsc'),
      ['--noEmit', '-p', '.'],
      project,
    ).then(
      () => ({ ok: true, output: '' }),
      (error: { stdout?: string; stderr?: string }) => ({
        ok: false,
        output: `${error.stdout ?? ''}${error.stderr ?? ''}`,
      }),
    );
    expect(result).toEqual({ ok: true, output: '' });
    expect(existsSync(join(project, 'node_modules', '@types', 'alpinejs'))).toBe(false);
  });
});
