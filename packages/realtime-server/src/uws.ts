import type * as Uws from 'uWebSockets.js';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The uWebSockets.js module in use, and whether it is a native build or the slow JavaScript fallback. */
export interface LoadedUws {
  readonly uws: typeof Uws;
  /** False when the package fell back to its JavaScript implementation (no native build for this Node). */
  readonly native: boolean;
}

let loaded: LoadedUws | undefined;

/**
 * Loads uWebSockets.js once. The unofficial build Herald depends on ships native binaries for Node 16, 18 and 20
 * and silently falls back to a JavaScript implementation elsewhere; the fallback has no `SSLApp`, which is how
 * it is told apart.
 */
export function loadUws(): LoadedUws {
  if (loaded) return loaded;
  const uws = require('uWebSockets.js') as typeof Uws;
  loaded = { uws, native: typeof uws.SSLApp === 'function' };
  return loaded;
}

/** The warning to print when uWebSockets.js runs without its native build. */
export const SLOW_UWS_WARNING =
  `uWebSockets.js is running its slow JavaScript fallback, not a native build (Node ${process.versions.node}, ` +
  `ABI ${process.versions.modules}). The bundled build has native binaries for Node 16, 18 and 20 only. Fix: run ` +
  'Herald on Node 20, or install an official uWebSockets.js build for this Node version in its place ' +
  '(e.g. `pnpm add uWebSockets.js@github:uNetworking/uWebSockets.js#v20.52.0`).';
