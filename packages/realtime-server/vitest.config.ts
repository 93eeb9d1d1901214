import { defineProject } from 'vitest/config';

// Runs on the transport the server picks itself (native uWebSockets.js where a build loads);
// vitest.portable.config.ts runs the integration suite again on the portable transport.
export default defineProject({
  test: {
    name: 'realtime-server',
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
