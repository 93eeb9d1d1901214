import { defineProject } from 'vitest/config';

// Part of `pnpm test`: issue 25's structure rules over every package's and app's sources (no I/O but reading files).
export default defineProject({
  test: {
    name: 'structure',
    root: import.meta.dirname,
    include: ['*.test.ts'],
    testTimeout: 60_000,
  },
});
