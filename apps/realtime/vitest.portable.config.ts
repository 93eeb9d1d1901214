import { defineProject } from 'vitest/config';

// The app's integration suite again, with every server it starts on the portable transport (node:http).
export default defineProject({
  test: {
    name: 'realtime-app:portable',
    include: ['test/**/*.int.test.ts'],
    // The console's browser suite tests the page, and its cluster suite what Redis adds up, not the transport (its
    // API suite runs here): once is enough.
    exclude: ['test/**/*.browser.int.test.ts', 'test/console-cluster.int.test.ts'],
    env: { REALTIME_TRANSPORT: 'portable' },
    // Cluster tests start several server processes (a slow start on Node 22/24's portable path under load):
    // every test waits on its events, and this outer limit only stops a test that truly hangs.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
