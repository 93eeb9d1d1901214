import { defineProject } from 'vitest/config';

// The integration suite again, on the portable transport (node:http + ws), forced.
export default defineProject({
  test: {
    name: 'realtime-server:portable',
    include: ['test/**/*.int.test.ts'],
    env: { HERALD_TRANSPORT: 'portable' },
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
