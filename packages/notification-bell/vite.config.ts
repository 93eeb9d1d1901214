import { defineConfig } from 'vite';

// Two builds into one dist/: the default mode writes the ES module (alpinejs and pusher-js left to the
// consumer's bundler) and the CSS, from entries/module.ts; `--mode standalone` writes the one-file script for a
// plain <script> tag, with everything bundled in.
export default defineConfig(({ mode }) => {
  const standalone = mode === 'standalone';
  return {
    build: {
      target: 'es2022',
      emptyOutDir: !standalone,
      sourcemap: true,
      minify: standalone,
      cssMinify: true, // the one stylesheet both builds share, written by the module build
      cssCodeSplit: false,
      lib: standalone
        ? {
            entry: 'src/standalone.ts',
            formats: ['iife'],
            name: 'HeraldNotificationBell',
            fileName: () => 'notification-bell.js',
            cssFileName: 'notification-bell',
          }
        : {
            entry: 'entries/module.ts',
            formats: ['es'],
            fileName: () => 'index.js',
            cssFileName: 'notification-bell',
          },
      rolldownOptions: standalone ? {} : { external: ['alpinejs', /^pusher-js/] },
    },
  };
});
