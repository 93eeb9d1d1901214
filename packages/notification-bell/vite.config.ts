import { defineConfig } from 'vite';

// Two builds into one dist/. The default mode writes the ES modules for bundlers (alpinejs and pusher-js left
// to the host's bundler) and the CSS; `--mode standalone` writes the script for a plain page, everything
// bundled in. In both, the live connections (and pusher-js with them) are a separate chunk, loaded only when
// broadcasting is configured. No source maps: the sources are not shipped, and maps to missing files only
// confuse the host's tools.
export default defineConfig(({ mode }) => {
  const standalone = mode === 'standalone';
  return {
    build: {
      target: 'es2022',
      emptyOutDir: !standalone,
      sourcemap: false,
      minify: standalone,
      cssCodeSplit: false,
      lib: standalone
        ? {
            entry: { 'notification-bell': 'src/standalone.ts' },
            formats: ['es'],
            fileName: (_format, name) => `${name}.js`,
            cssFileName: 'notification-bell',
          }
        : {
            entry: { index: 'src/index.ts', alpine: 'src/alpine.ts', live: 'src/live.ts' },
            formats: ['es'],
            fileName: (_format, name) => `${name}.js`,
          },
      rolldownOptions: {
        ...(standalone ? {} : { external: ['alpinejs', /^pusher-js/] }),
        output: { chunkFileNames: standalone ? 'standalone/[name].js' : 'chunks/[name].js' },
      },
    },
  };
});
