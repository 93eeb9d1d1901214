import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'realtime-server',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
