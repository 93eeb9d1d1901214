import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

// One run covers every package. Each package and app has a `<name>:unit` project for the unit tests beside its
// sources (src/**/*.test.ts: no I/O, milliseconds; `pnpm test:unit` runs them all) and declares its own project
// for its integration tests (test/**); the real-time packages add a `*.portable.config.ts` project that runs
// their integration suites on the portable transport as well.

const root = import.meta.dirname;

/** Project names follow the package folders, and the apps' package names (`realtime-app`). */
function projectName(group: string, folder: string): string {
  if (group === 'packages') return folder;
  const manifest = JSON.parse(readFileSync(join(root, group, folder, 'package.json'), 'utf8')) as {
    name: string;
  };
  return manifest.name.replace(/^@[^/]+\//, '');
}

function unitProjects(): TestProjectInlineConfiguration[] {
  return ['packages', 'apps'].flatMap((group) =>
    readdirSync(join(root, group))
      .filter((folder) => existsSync(join(root, group, folder, 'src')))
      .map((folder) => ({
        test: {
          name: `${projectName(group, folder)}:unit`,
          root: resolve(root, group, folder),
          include: ['src/**/*.test.ts'],
          // Unit tests take milliseconds; the limit only allows for a machine shared with other builds.
          testTimeout: 20_000,
        },
      })),
  );
}

export default defineConfig({
  test: {
    // Two test files at a time. Most integration suites spend their time waiting on sockets, child processes,
    // browsers and protocol timers (pusher-js's reconnect back-off, reapers, leases), not on the CPU; vitest's default
    // on a 2-core CI machine (cores − 1 = one file at a time) ran those waits end to end. Every suite is written to
    // hold on a busy machine (it waits for the event itself), so running two side by side tests nothing less.
    maxWorkers: 2,
    projects: [
      ...unitProjects(),
      'packages/*/vitest.config.ts',
      'packages/*/vitest.portable.config.ts',
      'apps/*/vitest.config.ts',
      'apps/*/vitest.portable.config.ts',
      // The release dry run (seconds); the packed-tarball checks run apart: `pnpm test:packages`, `.ci/packages`.
      'test/packages/vitest.config.ts',
      // Issue 25's structure rules (function length, import circles, double casts) over every package's sources.
      'test/structure/vitest.config.ts',
    ],
  },
});
