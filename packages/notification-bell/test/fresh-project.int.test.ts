import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// A new user's first steps, from the packed tarball: a fresh Vite 8 project (pnpm, outside this workspace)
// installs the bell, builds the README's bundler snippet as written, and type-checks it with
// `skipLibCheck: false`. Everything comes from the npm registry except the bell itself; nothing in the
// workspace is touched (the tarball and the project live in a temp dir).

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

/** The versions a new project would get today (checked with `npm view`). */
const VERSIONS = { vite: '8.3.8', typescript: '7.0.2', alpinejs: '3.17.5' } as const;

// The tsconfig of Vite's vanilla-ts template, with the library check on.
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    useDefineForClassFields: true,
    module: 'ESNext',
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    types: ['vite/client'],
    skipLibCheck: false,
    moduleResolution: 'bundler',
    allowImportingTsExtensions: true,
    verbatimModuleSyntax: true,
    moduleDetection: 'force',
    noEmit: true,
    strict: true,
    noUnusedLocals: true,
    noUnusedParameters: true,
    noFallthroughCasesInSwitch: true,
    noUncheckedSideEffectImports: true,
  },
  include: ['src'],
};

/** The first `ts` block under the README's "With a bundler" heading, exactly as written. */
async function readmeSnippet(): Promise<string> {
  const readme = await readFile(join(PACKAGE, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## With a bundler'));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (!match?.[1]) throw new Error('the README has no ts snippet under "With a bundler"');
  return match[1];
}

/** Runs a command with a clean environment (no npm_config_* of the workspace's own pnpm run). */
function sh(command: string, args: string[], cwd: string) {
  return run(command, args, {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, CI: 'true' },
    maxBuffer: 16 * 1024 * 1024,
    timeout: 240_000,
  });
}

describe('a fresh Vite project with the packed bell', () => {
  let dir: string;
  let project: string;
  let tarball: string;

  beforeAll(async () => {
    if (!existsSync(join(PACKAGE, 'dist', 'index.js')))
      throw new Error('build @herald/notification-bell first');
    dir = await mkdtemp(join(tmpdir(), 'herald-bell-fresh-'));
    await sh('pnpm', ['pack', '--pack-destination', dir], PACKAGE);
    const packed = (await readdir(dir)).find((name) => name.endsWith('.tgz'));
    if (!packed) throw new Error('pnpm pack wrote no tarball');
    tarball = join(dir, packed);
    project = join(dir, 'app');
    await mkdir(join(project, 'src'), { recursive: true });
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify(
        {
          name: 'fresh-bell-app',
          private: true,
          type: 'module',
          dependencies: { '@herald/notification-bell': `file:${tarball}`, alpinejs: VERSIONS.alpinejs },
          devDependencies: { vite: VERSIONS.vite, typescript: VERSIONS.typescript },
        },
        null,
        2,
      ),
    );
    await writeFile(join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
    await writeFile(join(project, 'src', 'main.ts'), await readmeSnippet());
    await writeFile(
      join(project, 'index.html'),
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Fresh</title></head><body>
<div data-notification-bell data-options='{"userId":"alice"}'></div>
<script type="module" src="/src/main.ts"></script></body></html>`,
    );
    await sh('pnpm', ['install', '--no-frozen-lockfile'], project);
  }, 300_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
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
    await sh(join(project, 'node_modules', '.bin', 'vite'), ['build'], project);
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
