import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'http-api', include: ['src/**/*.test.ts', 'test/**/*.test.ts'] },
});
