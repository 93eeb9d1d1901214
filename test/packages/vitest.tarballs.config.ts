import { defineProject } from 'vitest/config';

// `pnpm test:packages` and `.ci/packages`: the packed-tarball checks (slow: builds, packs and installs every
// package) and the release dry run. Not part of `pnpm test`.
export default defineProject({
  test: {
    name: 'packages-tarballs',
    root: import.meta.dirname,
    include: ['*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 1_200_000,
  },
});
