import { defineProject } from 'vitest/config';

// The integration suite again, on the portable transport (node:http), forced.
export default defineProject({
  test: {
    name: 'realtime-server:portable',
    include: ['test/**/*.int.test.ts'],
    env: { HERALD_TRANSPORT: 'portable' },
    // The same young generation on every Node line: how much uncollected garbage a process may hold differs between
    // V8 versions (Node 24's grew by 55–73 MiB where Node 20 and 22 stay under 32 MiB for the same server), and the
    // slow-consumer test bounds the process's RSS to show the server keeps no backlog for a stalled reader.
    execArgv: ['--max-semi-space-size=8'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
