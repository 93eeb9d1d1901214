import { defineProject } from 'vitest/config';

// Part of `pnpm test`: the release dry run (seconds). The packed-tarball checks are in vitest.tarballs.config.ts.
export default defineProject({
  test: {
    name: 'release-dry-run',
    root: import.meta.dirname,
    include: ['release.test.ts'],
    testTimeout: 60_000,
  },
});
