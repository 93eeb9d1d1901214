import { fileURLToPath } from 'node:url';

/**
 * The folder holding the console's built front end (`index.html` and `assets/`), for a server to serve at
 * `/console/`. The files use relative URLs, so they work under any path prefix.
 * @example
 * import { consoleAssetsDir } from '@herald/console';
 * const html = readFileSync(join(consoleAssetsDir, 'index.html'));
 */
export const consoleAssetsDir: string = fileURLToPath(new URL('../app/', import.meta.url));
