import { defineProject } from 'vitest/config';

// The app's integration suite again, with every server it starts on the portable transport (node:http + ws).
export default defineProject({
  test: {
    name: 'realtime-app:portable',
    include: ['test/**/*.int.test.ts'],
    env: { REALTIME_TRANSPORT: 'portable' },
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
