import { defineConfig } from 'vitest/config';

// One run covers every package: each package and app declares its own project(s).
export default defineConfig({
  test: {
    projects: ['packages/*/vitest.config.ts', 'apps/*/vitest.config.ts'],
  },
});
