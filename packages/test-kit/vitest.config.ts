import { defineProject } from 'vitest/config';

// The kit's own integration tests (real redis-server processes); its unit tests run in `test-kit:unit`.
export default defineProject({
  test: {
    name: 'test-kit',
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
