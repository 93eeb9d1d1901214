import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

// A new user's project, outside this workspace, with the packed bell installed from its tarball and the rest
// from the npm registry: used by this package's fresh-project test and by the notification center's browser
// test of the same project against the service. Nothing in the workspace is written.

export const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

/** The versions a new project would get today (checked with `npm view`). */
export const VERSIONS = { vite: '8.3.8', typescript: '7.0.2', alpinejs: '3.17.5' } as const;

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
export async function readmeSnippet(): Promise<string> {
  const readme = await readFile(join(PACKAGE, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## With a bundler'));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (!match?.[1]) throw new Error('the README has no ts snippet under "With a bundler"');
  return match[1];
}

/** Runs a command with a clean environment (no npm_config_* of the workspace's own pnpm run). */
export function sh(command: string, args: string[], cwd: string) {
  return run(command, args, {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, CI: 'true' },
    maxBuffer: 16 * 1024 * 1024,
    timeout: 240_000,
  });
}

/** A fresh project: where it is, the tarball it installed, and how to remove both. */
export interface FreshProject {
  readonly project: string;
  readonly tarball: string;
  bin(name: string): string;
  remove(): Promise<void>;
}

/**
 * Packs the bell, writes a Vite 8 + TypeScript project whose `src/main.ts` is the README's snippet as written
 * and whose page is `indexHtml`, and installs it with pnpm. Takes a minute at most on a warm pnpm store.
 */
export async function createFreshProject(indexHtml: string): Promise<FreshProject> {
  if (!existsSync(join(PACKAGE, 'dist', 'index.js')))
    throw new Error('build @herald/notification-bell first');
  const dir = await mkdtemp(join(tmpdir(), 'herald-bell-fresh-'));
  await sh('pnpm', ['pack', '--pack-destination', dir], PACKAGE);
  const packed = (await readdir(dir)).find((name) => name.endsWith('.tgz'));
  if (!packed) throw new Error('pnpm pack wrote no tarball');
  const tarball = join(dir, packed);
  const project = join(dir, 'app');
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
  await writeFile(join(project, 'index.html'), indexHtml);
  await sh('pnpm', ['install', '--no-frozen-lockfile'], project);
  return {
    project,
    tarball,
    bin: (name) => join(project, 'node_modules', '.bin', name),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
