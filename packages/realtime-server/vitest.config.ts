import { defineProject } from 'vitest/config';

// Runs on the transport the server picks itself (native uWebSockets.js where a build loads);
// vitest.portable.config.ts runs the integration suite again on the portable transport.
export default defineProject({
  test: {
    name: 'realtime-server',
    include: ['test/**/*.test.ts'],
    // The same young generation on every Node line: how much uncollected garbage a process may hold differs between
    // V8 versions (Node 24's grew by 55–73 MiB where Node 20 and 22 stay under 32 MiB for the same server), and the
    // slow-consumer test bounds the process's RSS to show the server keeps no backlog for a stalled reader.
    execArgv: ['--max-semi-space-size=8'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
