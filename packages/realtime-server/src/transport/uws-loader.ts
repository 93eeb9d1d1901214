import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The packages tried for a native uWebSockets.js build, in order: an official build the user installed under its
 * own name first, then the npm mirror with Node 20–25 builds (glibc ≥ 2.38), then the older build with Node ≤ 20
 * binaries that load on glibc 2.36.
 */
export const UWS_CANDIDATES: readonly string[] = [
  'uWebSockets.js',
  '@btc-vision/uwebsockets.js',
  '@trufflesuite/uws-js-unofficial',
];

/** A native uWebSockets.js build that loaded. */
export interface NativeUws {
  /** The addon's exports (typed by the adapter that uses them). */
  readonly module: Record<string, unknown>;
  /** `name@version` of the package the build came from. */
  readonly source: string;
  /** The `.node` file loaded. */
  readonly binary: string;
}

/** Why one candidate did not load. */
export interface UwsAttempt {
  readonly name: string;
  readonly reason: string;
}

/** The loader's answer: a native build, or why none loaded. */
export type UwsLoad =
  | { readonly ok: true; readonly uws: NativeUws; readonly attempts: readonly UwsAttempt[] }
  | { readonly ok: false; readonly attempts: readonly UwsAttempt[] };

/** Where the running Node looks for a build: `linux-x64`, ABI `127`, … */
export function runtimeTarget(): { platform: string; arch: string; abi: string } {
  return { platform: process.platform, arch: process.arch, abi: process.versions.modules };
}

interface PackageFolder {
  readonly dir: string;
  /** The name it is installed under, with the published name when an npm alias differs from it. */
  readonly label: string;
  readonly version: string;
}

/**
 * The package folder around a resolved entry: the nearest manifest with a name. Resolution follows symlinks, so an
 * aliased install (`uWebSockets.js` → another package) is found by its real folder and labelled with both names.
 */
function packageFolder(entry: string, name: string): PackageFolder | undefined {
  let dir = dirname(entry);
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
        if (parsed.name) {
          const version = parsed.version ?? '?';
          const label = parsed.name === name ? name : `${name} (${parsed.name})`;
          return { dir, label, version };
        }
      } catch {
        // An unreadable manifest is not the package root; keep walking up.
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * Native addons are the only thing that counts as loaded: a package's JavaScript emulation (the fallback some
 * builds switch to silently) never does, so the binary is loaded directly, never through the package's entry.
 */
export function isNativeModule(module: Record<string, unknown>): boolean {
  const app = module.App;
  return typeof app === 'function' && Function.prototype.toString.call(app).includes('[native code]');
}

/** Where one candidate stands before anything is loaded: installed or not, and its build for this Node. */
export type LocatedCandidate =
  | { readonly name: string; readonly installed: false }
  | {
      readonly name: string;
      readonly installed: true;
      /** `name@version`, with the published name when an npm alias differs. */
      readonly source: string;
      readonly version: string;
      /** The file name a build for this Node, platform and CPU has: `uws_linux_x64_127.node`. */
      readonly file: string;
      /** That file's path, when the package has it. */
      readonly binary?: string;
      /** The Node ABIs the package has builds for on this platform and CPU, ascending. */
      readonly abis: readonly string[];
      /** The path of the package's build for another ABI on this platform and CPU. */
      readonly binaryFor: (abi: string) => string | undefined;
    }
  | { readonly name: string; readonly installed: true; readonly problem: string };

/** Finds a candidate package and its build for the running Node, without loading anything. */
export function locateCandidate(name: string, requireFrom: NodeJS.Require): LocatedCandidate {
  let entry: string;
  try {
    entry = requireFrom.resolve(name);
  } catch {
    return { name, installed: false };
  }
  const folder = packageFolder(entry, name);
  if (!folder) return { name, installed: true, problem: `cannot find the package folder of ${entry}` };
  const { dir: root, version } = folder;
  const { platform, arch, abi } = runtimeTarget();
  const folders = [root, join(root, 'binaries'), join(root, 'dist')];
  const binaryFor = (wanted: string) =>
    folders
      .map((dir) => join(dir, `uws_${platform}_${arch}_${wanted}.node`))
      .find((path) => existsSync(path));
  const pattern = new RegExp(`^uws_${platform}_${arch}_(\\d+)\\.node$`);
  const abis = new Set<string>();
  for (const dir of folders) {
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir)) {
      const match = pattern.exec(file);
      if (match?.[1]) abis.add(match[1]);
    }
  }
  return {
    name,
    installed: true,
    source: `${folder.label}@${version}`,
    version,
    file: `uws_${platform}_${arch}_${abi}.node`,
    binary: binaryFor(abi),
    abis: [...abis].sort((a, b) => Number(a) - Number(b)),
    binaryFor,
  };
}

/** Loads a native binary: its exports, or the dynamic loader's first line with folders left out. */
export function loadBinary(
  binary: string,
  requireFrom: NodeJS.Require,
): { readonly module: Record<string, unknown> } | { readonly error: string } {
  try {
    return { module: requireFrom(binary) as Record<string, unknown> };
  } catch (error) {
    // The dynamic loader's first line says why (e.g. a newer glibc wanted); folders are left out for brevity.
    const message = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
    return { error: message.replace(/\S*\/([^/\s]+)/g, '$1') };
  }
}

function tryCandidate(name: string, requireFrom: NodeJS.Require): { uws: NativeUws } | { reason: string } {
  const located = locateCandidate(name, requireFrom);
  if (!located.installed) return { reason: 'not installed' };
  if ('problem' in located) return { reason: located.problem };
  const { version, file, binary, source } = located;
  const { platform, arch, abi } = runtimeTarget();
  if (!binary)
    return { reason: `version ${version} has no build for Node ABI ${abi} on ${platform}-${arch}` };
  const loaded = loadBinary(binary, requireFrom);
  if ('error' in loaded)
    return { reason: `version ${version}: ${file} does not load here (${loaded.error})` };
  if (!isNativeModule(loaded.module)) return { reason: `version ${version}: ${file} is not a native build` };
  return { uws: { module: loaded.module, source, binary } };
}

const cache = new Map<string, UwsLoad>();

/**
 * Finds the first candidate whose native build loads on this Node, platform and C library. Cached per candidate
 * list: a process loads at most one build.
 */
export function loadNativeUws(
  candidates: readonly string[] = UWS_CANDIDATES,
  from: string = import.meta.url,
): UwsLoad {
  const key = `${from}\n${candidates.join('\n')}`;
  const known = cache.get(key);
  if (known) return known;
  const requireFrom = createRequire(from);
  const attempts: UwsAttempt[] = [];
  let answer: UwsLoad | undefined;
  for (const name of candidates) {
    const result = tryCandidate(name, requireFrom);
    if ('uws' in result) {
      answer = { ok: true, uws: result.uws, attempts };
      break;
    }
    attempts.push({ name, reason: result.reason });
  }
  answer ??= { ok: false, attempts };
  cache.set(key, answer);
  return answer;
}
