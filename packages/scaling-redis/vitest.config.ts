import { defineProject } from 'vitest/config';

// Outage tests stop and start redis-server processes and wait for reconnects: on a busy two-core machine that
// takes a while, so the outer limits are generous and every test waits on the event itself.
export default defineProject({
  test: {
    name: 'scaling-redis',
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
