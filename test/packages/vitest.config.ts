import { defineProject } from 'vitest/config';

// Part of `pnpm test`: the release dry run (seconds) and the import scan's unit test. The packed-tarball
// checks run apart (vitest.tarballs.config.ts: `pnpm test:packages`, `.ci/packages`).
export default defineProject({
  test: {
    name: 'packages-release',
    root: import.meta.dirname,
    include: ['release.test.ts', 'scan.test.ts'],
    testTimeout: 60_000,
  },
});
