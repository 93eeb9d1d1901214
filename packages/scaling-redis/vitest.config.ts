import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'scaling-redis', include: ['src/**/*.test.ts', 'test/**/*.test.ts'] },
});
