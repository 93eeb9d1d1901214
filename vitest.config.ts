import { defineConfig } from 'vitest/config';

// One run covers every package: each package and app declares its own project(s). The real-time packages add a
// `*.portable.config.ts` project that runs their integration suites on the portable transport as well.
export default defineConfig({
  test: {
    projects: [
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
