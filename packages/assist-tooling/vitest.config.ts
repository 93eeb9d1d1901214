import { defineProject } from 'vitest/config';

// Integration tests start MCP servers and child processes: on a busy two-core machine a start can take seconds,
// so the limits are generous and each test waits on the event itself.
export default defineProject({
  test: {
    name: 'assist-tooling',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
