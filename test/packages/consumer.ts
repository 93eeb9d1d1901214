import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import ts from 'typescript';
import { type PackageJson, readJson, repoRoot, runOk, type WorkspacePackage } from './workspace.js';

/** The version ranges the workspace uses, from the pnpm catalog and every package's manifest. */
function workspaceRanges(packages: readonly WorkspacePackage[]): Map<string, string> {
  const ranges = new Map<string, string>();
  const manifests = [
    readJson<PackageJson>(join(repoRoot, 'package.json')),
    ...packages.map((pkg) => pkg.manifest),
  ];
  for (const manifest of manifests) {
    for (const deps of [manifest.dependencies, manifest.devDependencies]) {
      for (const [name, range] of Object.entries(deps ?? {})) {
        if (!range.startsWith('catalog:') && !range.startsWith('workspace:') && !ranges.has(name)) {
          ranges.set(name, range);
        }
      }
    }
  }
  // The catalog wins: `name: range` lines under `catalog:` in pnpm-workspace.yaml.
  const yaml = readFileSync(join(repoRoot, 'pnpm-workspace.yaml'), 'utf8');
  const catalog = yaml.split(/^catalog:\s*$/m)[1] ?? '';
  for (const line of catalog.split('\n')) {
    const match = /^\s+"?([^":\s]+(?:\/[^":\s]+)?)"?:\s*(\S+)\s*$/.exec(line);
    if (match?.[1] && match[2]) ranges.set(match[1], match[2]);
    else if (line.trim() !== '' && !line.startsWith(' ')) break;
  }
  return ranges;
}

/** The npm package name a bare import specifier points into (`@scope/name/sub` → `@scope/name`). */
export function packageNameOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('#')) return undefined;
  if (specifier.startsWith('node:') || isBuiltin(specifier)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Every module specifier a JavaScript or TypeScript text imports, statically, dynamically or by `require`. */
export function importedSpecifiers(text: string): string[] {
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles.map((file) => file.fileName);
}

export type Client = 'pnpm' | 'npm';

export interface ConsumerOptions {
  dir: string;
  /** The package under test. */
  name: string;
  /** Tarball of every publishable package, by name. */
  tarballs: ReadonlyMap<string, string>;
  /** Other packages the README example imports (installed as a user following the README would). */
  alongside: readonly string[];
  client: Client;
  packages: readonly WorkspacePackage[];
}

/**
 * Writes a fresh Node project (ESM) that depends on the package's tarball, on TypeScript and on whatever the
 * example imports beside it, then installs it. The other `@herald/*` packages are not on npm: overrides point
 * every one of them at its tarball, so a `^0.1.0` range inside a tarball installs the packed sibling.
 */
export async function createConsumer(options: ConsumerOptions): Promise<void> {
  const ranges = workspaceRanges(options.packages);
  const rangeOf = (name: string): string => {
    const tarball = options.tarballs.get(name);
    if (tarball) return `file:${tarball}`;
    const range = ranges.get(name);
    if (!range) throw new Error(`no version of ${name} is used in the workspace; add it where it is used`);
    return range;
  };
  const dependencies: Record<string, string> = { [options.name]: rangeOf(options.name) };
  for (const name of options.alongside) dependencies[name] = rangeOf(name);
  const overrides = Object.fromEntries([...options.tarballs].map(([name, path]) => [name, `file:${path}`]));
  const manifest = {
    name: 'herald-consumer',
    version: '1.0.0',
    private: true,
    type: 'module',
    dependencies,
    devDependencies: { typescript: rangeOf('typescript'), '@types/node': rangeOf('@types/node') },
    ...(options.client === 'npm' ? { overrides } : { pnpm: { overrides } }),
  };
  mkdirSync(options.dir, { recursive: true });
  writeFileSync(join(options.dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  // Outside the workspace: a pnpm-workspace.yaml of its own keeps pnpm from looking further up.
  if (options.client === 'pnpm') writeFileSync(join(options.dir, 'pnpm-workspace.yaml'), 'packages: []\n');
  const env = { CI: 'true', npm_config_update_notifier: 'false' };
  if (options.client === 'pnpm') {
    await runOk('pnpm', ['install', '--no-frozen-lockfile', '--reporter=append-only'], {
      cwd: options.dir,
      env,
      timeoutMs: 600_000,
    });
  } else {
    await runOk('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: options.dir,
      env,
      timeoutMs: 600_000,
    });
  }
}

/** A strict `nodenext` tsconfig for the consumer, with `skipLibCheck` off so the package's .d.ts are checked. */
export function writeConsumerTsconfig(dir: string, files: readonly string[], dom: boolean): void {
  const tsconfig = {
    compilerOptions: {
      strict: true,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2023',
      lib: dom ? ['es2023', 'dom', 'dom.iterable'] : ['es2023'],
      types: ['node'],
      skipLibCheck: false,
      outDir: 'out',
      rootDir: '.',
    },
    files,
  };
  writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
}
