// The console's front end: the static files the @herald/console package builds, read once at start.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};

/** A file to serve: its type and bytes. */
export interface Asset {
  readonly type: string;
  readonly body: Uint8Array;
}

/** Every file under a folder by its path relative to it (with `/`), e.g. `index.html`, `assets/console.js`. */
export function readAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const type = TYPES[extname(name)] ?? 'application/octet-stream';
        assets.set(relative(dir, path).split(sep).join('/'), { type, body: readFileSync(path) });
      }
    }
  };
  walk(dir);
  return assets;
}
