import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'assist-tooling', include: ['src/**/*.test.ts', 'test/**/*.test.ts'] },
});
