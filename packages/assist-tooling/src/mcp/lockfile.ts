import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { parse as parseYaml } from 'yaml';

/** Top-level package versions from a package-lock.json text (lockfile v2 and v3). */
export function npmLockVersions(text: string): Map<string, string> {
  const lock = JSON.parse(text) as { packages?: Record<string, { version?: string }> };
  const versions = new Map<string, string>();
  for (const [path, entry] of Object.entries(lock.packages ?? {})) {
    const name = /^node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(path)?.[1];
    if (name && entry.version) versions.set(name, entry.version);
  }
  return versions;
}

/** The root importer's versions from a pnpm-lock.yaml text (peer suffixes such as `(zod@4.1.0)` dropped). */
export function pnpmLockVersions(text: string): Map<string, string> {
  type Deps = Record<string, { version?: string } | string>;
  const lock = parseYaml(text) as { importers?: Record<string, Record<string, Deps>> } | null;
  const root = lock?.importers?.['.'] ?? {};
  const versions = new Map<string, string>();
  for (const group of ['dependencies', 'devDependencies', 'optionalDependencies']) {
    for (const [name, entry] of Object.entries(root[group] ?? {})) {
      const version = typeof entry === 'string' ? entry : entry.version;
      if (version && !version.startsWith('link:')) versions.set(name, version.replace(/\(.*$/, ''));
    }
  }
  return versions;
}

/** Versions from a yarn.lock text, classic or Berry. */
export function yarnLockVersions(text: string): Map<string, string> {
  const versions = new Map<string, string>();
  for (const match of text.matchAll(
    /^"?((?:@[^@\s"/]+\/)?[^@\s"]+)@[^\n]*:\n(?:[ \t]+[^\n]*\n)*?[ \t]+version:? "?([^"\n]+)"?/gm,
  )) {
    const [, name, version] = match;
    if (name && version && !versions.has(name)) versions.set(name, version);
  }
  return versions;
}

/** Versions from a bun.lock text (JSONC: `packages.<name>[0]` is `name@version`). */
export function bunLockVersions(text: string): Map<string, string> {
  const lock = parseJsonc(text) as { packages?: Record<string, unknown[]> } | undefined;
  const versions = new Map<string, string>();
  for (const [name, entry] of Object.entries(lock?.packages ?? {})) {
    const id = typeof entry[0] === 'string' ? entry[0] : '';
    const version = id.slice(id.lastIndexOf('@') + 1);
    if (version !== '' && !name.includes('/node_modules/')) versions.set(name, version);
  }
  return versions;
}

/** The installed versions the project's lockfile records, for packages missing from `node_modules`. */
export function readLockfileVersions(root: string): Map<string, string> {
  const readers: [string, (text: string) => Map<string, string>][] = [
    ['pnpm-lock.yaml', pnpmLockVersions],
    ['package-lock.json', npmLockVersions],
    ['yarn.lock', yarnLockVersions],
    ['bun.lock', bunLockVersions],
  ];
  for (const [file, read] of readers) {
    const path = join(root, file);
    if (!existsSync(path)) continue;
    try {
      return read(readFileSync(path, 'utf8'));
    } catch {
      // A lockfile that does not parse gives no versions; node_modules stays the source of truth.
      return new Map();
    }
  }
  return new Map();
}
