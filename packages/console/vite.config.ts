import { defineConfig } from 'vite';

// One page, built to dist/app with relative asset URLs: the server mounts it at `{path}/console/`, whatever its
// path prefix. No source maps: the sources are not shipped.
export default defineConfig({
  base: './',
  build: {
    outDir: 'dist/app',
    target: 'es2022',
    sourcemap: false,
    assetsDir: 'assets',
  },
});
