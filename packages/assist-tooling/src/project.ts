import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import semver from 'semver';
import { AssistError, fail, ok, type Result } from './errors.js';

/** A package found in the project's `node_modules`. */
export interface InstalledPackage {
  name: string;
  version: string;
  /** Absolute folder of the installed package. */
  dir: string;
  /** Whether the project's package.json names it (dependencies, devDependencies or optionalDependencies). */
  direct: boolean;
}

/** The package managers `assist` knows how to phrase commands for. */
export type PackageManager = 'npm' | 'pnpm' | 'yarn' | 'bun';

/** What `assist` knows about a project: its root, runtime, package manager and installed packages. */
export interface Project {
  root: string;
  name: string | undefined;
  packageManager: PackageManager;
  /** The Node version the project targets (`.nvmrc`, `.node-version`, `engines.node`, else the running Node). */
  nodeVersion: string;
  /** The Node version or range as the project declares it, or undefined when it declares none. */
  nodeDeclared: string | undefined;
  packages: Map<string, InstalledPackage>;
  scripts: Record<string, string>;
}

interface PackageJson {
  name?: string;
  version?: string;
  packageManager?: string;
  engines?: { node?: string };
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** Reads a package.json, or undefined when it is missing or not JSON. */
export function readPackageJson(dir: string): PackageJson | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;
  } catch {
    // Missing or broken manifests are treated as "no package here"; callers decide whether that matters.
    return undefined;
  }
}

/** Finds a package folder by walking up `node_modules` folders from `from`, as Node's resolution does. */
export function findPackageDir(name: string, from: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function listNodeModules(root: string): string[] {
  const base = join(root, 'node_modules');
  if (!existsSync(base)) return [];
  const names: string[] = [];
  for (const entry of readdirSync(base, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    if (entry.name.startsWith('@')) {
      for (const inner of readdirSync(join(base, entry.name))) names.push(`${entry.name}/${inner}`);
    } else {
      names.push(entry.name);
    }
  }
  return names.sort();
}

function detectPackageManager(root: string, manifest: PackageJson): PackageManager {
  const declared = manifest.packageManager?.split('@')[0];
  if (declared === 'pnpm' || declared === 'yarn' || declared === 'bun' || declared === 'npm') return declared;
  if (existsSync(join(root, 'pnpm-lock.yaml'))) return 'pnpm';
  if (existsSync(join(root, 'yarn.lock'))) return 'yarn';
  if (existsSync(join(root, 'bun.lock')) || existsSync(join(root, 'bun.lockb'))) return 'bun';
  return 'npm';
}

function detectNodeVersion(root: string, manifest: PackageJson): { version: string; declared?: string } {
  for (const file of ['.nvmrc', '.node-version']) {
    const path = join(root, file);
    if (!existsSync(path)) continue;
    const text = readFileSync(path, 'utf8').trim();
    const found = semver.coerce(text);
    if (found) return { version: found.version, declared: text.replace(/^v/, '') };
  }
  const range = manifest.engines?.node?.trim();
  const min = range && semver.validRange(range) ? semver.minVersion(range) : null;
  return min && range ? { version: min.version, declared: range } : { version: process.versions.node };
}

/** Reads a project: its manifest, package manager, target Node version and installed packages. */
export function readProject(root: string): Result<Project> {
  const manifest = readPackageJson(root);
  if (manifest === undefined) {
    return fail(new AssistError('project_invalid', `No readable package.json in ${root}.`));
  }
  const direct = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.devDependencies ?? {}),
    ...Object.keys(manifest.optionalDependencies ?? {}),
  ]);
  const node = detectNodeVersion(root, manifest);
  const packages = new Map<string, InstalledPackage>();
  for (const name of new Set([...direct, ...listNodeModules(root)])) {
    const dir = findPackageDir(name, root);
    const version = dir ? readPackageJson(dir)?.version : undefined;
    if (dir === undefined || version === undefined) continue;
    packages.set(name, { name, version, dir, direct: direct.has(name) });
  }
  return ok({
    root,
    name: manifest.name,
    packageManager: detectPackageManager(root, manifest),
    nodeVersion: node.version,
    nodeDeclared: node.declared,
    packages: new Map([...packages].sort(([a], [b]) => a.localeCompare(b))),
    scripts: manifest.scripts ?? {},
  });
}

/** The installed version of a package, or undefined when it is absent. */
export function installedVersion(project: Project, name: string): string | undefined {
  return project.packages.get(name)?.version;
}

/** Tells whether a package is installed and, when a range is given, whether its version satisfies it. */
export function usesPackage(project: Project, name: string, range?: string): boolean {
  const version = installedVersion(project, name);
  if (version === undefined) return false;
  return range === undefined || semver.satisfies(version, range, { includePrerelease: true });
}

/** How to run a package script with the project's package manager, e.g. `pnpm run test`. */
export function runScriptCommand(manager: PackageManager, script: string): string {
  return manager === 'yarn' ? `yarn ${script}` : `${manager} run ${script}`;
}

/** How to run a package binary with the project's package manager, e.g. `pnpm exec tsc`. */
export function execCommand(manager: PackageManager, command: string): string {
  const prefix = { npm: 'npx', pnpm: 'pnpm exec', yarn: 'yarn', bun: 'bunx' }[manager];
  return `${prefix} ${command}`;
}
