import { defineProject } from 'vitest/config';

// Integration tests start MCP servers and child processes: on a busy two-core machine a start can take seconds,
// so the limits are generous (three minutes, for a machine under heavy load) and each test waits on the event itself;
// no test sets a shorter limit of its own.
export default defineProject({
  test: {
    name: 'assist-tooling',
    include: ['test/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
