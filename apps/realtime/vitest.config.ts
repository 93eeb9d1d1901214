import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'realtime-app',
    include: ['test/**/*.test.ts'],
    // Cluster tests start several server processes (a slow start on Node 22/24's portable path under load):
    // every test waits on its events, and this outer limit only stops a test that truly hangs.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
