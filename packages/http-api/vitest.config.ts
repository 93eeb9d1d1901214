import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'http-api', include: ['test/**/*.test.ts'] },
});
