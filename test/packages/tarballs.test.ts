// Every publishable package as an npm user gets it: built, packed with `pnpm pack` (workspace: and catalog: ranges
// rewritten), linted by publint and attw, installed from its tarball into a fresh project outside the workspace,
// type-checked by a strict TypeScript consumer, its README example run, and `require()` checked against what the
// README says. Slow (installs from the registry): run by `pnpm test:packages` and `.ci/packages`, not `pnpm test`.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Client,
  createConsumer,
  importedSpecifiers,
  packageNameOf,
  writeConsumerTsconfig,
} from './consumer.js';
import { exampleSpecOf, runExample } from './examples.js';
import { promisedOutput, readmeExample, requireClaim } from './readme.js';
import { type PackageJson, publishablePackages, repoRoot, run, runOk } from './workspace.js';

const packages = publishablePackages();
// Under the system temp dir: outside the workspace, so nothing resolves from the repository's node_modules.
const work = mkdtempSync(join(tmpdir(), 'herald-packages-'));
const packsDir = join(work, 'packs');
const tarballs = new Map<string, string>();
const bin = (name: string) => join(repoRoot, 'node_modules', '.bin', name);

beforeAll(async () => {
  const filters = packages.flatMap((pkg) => ['--filter', pkg.manifest.name]);
  await runOk('pnpm', ['turbo', 'run', 'build', '--output-logs=errors-only', ...filters], {
    cwd: repoRoot,
    timeoutMs: 900_000,
  });
  mkdirSync(packsDir, { recursive: true });
  for (const pkg of packages) {
    const packed = await runOk('pnpm', ['pack', '--pack-destination', packsDir], { cwd: pkg.dir });
    const tarball = packed.stdout.trim().split('\n').pop()?.trim() ?? '';
    expect(tarball, `pnpm pack in ${pkg.folder} names its tarball`).toMatch(/\.tgz$/);
    tarballs.set(pkg.manifest.name, tarball);
  }
}, 1_200_000);

afterAll(() => {
  if (process.env.HERALD_KEEP_CONSUMERS) console.info(`consumers kept in ${work}`);
  else rmSync(work, { recursive: true, force: true });
});

/** Every file under a folder, relative paths. */
function filesUnder(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (entry === 'node_modules') return [];
    return statSync(path).isDirectory() ? filesUnder(path, base) : [relative(base, path)];
  });
}

/** The `exports` subpaths whose target is JavaScript (not CSS or JSON), each with whether it declares types. */
function moduleEntries(manifest: PackageJson): { subpath: string; typed: boolean }[] {
  return Object.entries(manifest.exports ?? {})
    .map(([subpath, target]) => {
      const file = typeof target === 'string' ? target : (target.default ?? target.import ?? '');
      return { subpath, file, typed: typeof target !== 'string' && typeof target.types === 'string' };
    })
    .filter((entry) => /\.[cm]?js$/.test(entry.file))
    .map(({ subpath, typed }) => ({ subpath, typed }));
}

const specifierOf = (name: string, subpath: string) =>
  subpath === '.' ? name : `${name}/${subpath.slice(2)}`;

describe.each(packages)('$manifest.name', (pkg) => {
  const { name } = pkg.manifest;
  const spec = exampleSpecOf(pkg.folder);
  // npm for the packages whose README installs with npm; pnpm for the rest.
  const client: Client = spec.client ?? 'pnpm';
  const unpacked = join(work, 'unpacked', pkg.folder);
  const consumer = join(work, 'consumers', pkg.folder);
  const tarball = () => tarballs.get(name) ?? '';
  let packed: PackageJson;

  it('packs with every workspace: and catalog: range rewritten to a version', async () => {
    mkdirSync(unpacked, { recursive: true });
    await runOk('tar', ['xzf', tarball(), '-C', unpacked, '--strip-components=1'], { cwd: work });
    packed = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8')) as PackageJson;
    const ranges = [packed.dependencies, packed.peerDependencies, packed.optionalDependencies].flatMap(
      (deps) => Object.entries(deps ?? {}),
    );
    const unresolved = ranges.filter(([, range]) => /^(workspace|catalog):/.test(range));
    expect(unresolved).toEqual([]);
    expect(packed.version).toBe(pkg.manifest.version);
  });

  it('passes publint (strict: warnings count)', async () => {
    const result = await run(bin('publint'), ['run', tarball(), '--strict'], { cwd: work });
    expect(result.code, result.stdout + result.stderr).toBe(0);
  });

  it('passes attw for ESM consumers (node16 from ESM, bundler)', async () => {
    // ESM only, as the house style says: the CommonJS resolutions are ignored (`esm-only`); what `require()`
    // does on Node 20.19+ is checked below against the README. Stylesheets carry no types.
    const css = Object.entries(pkg.manifest.exports ?? {})
      .filter(([, target]) => typeof target === 'string' && target.endsWith('.css'))
      .map(([subpath]) => subpath);
    const args = [tarball(), '--profile', 'esm-only', '--format', 'ascii'];
    if (css.length > 0) args.push('--exclude-entrypoints', ...css);
    const result = await run(bin('attw'), args, { cwd: work });
    expect(result.code, result.stdout + result.stderr).toBe(0);
  });

  it('declares in its dependencies every package its code imports', () => {
    const declared = new Set([
      name,
      ...Object.keys(packed.dependencies ?? {}),
      ...Object.keys(packed.peerDependencies ?? {}),
      ...Object.keys(packed.optionalDependencies ?? {}),
    ]);
    const missing = new Set<string>();
    for (const file of filesUnder(unpacked).filter((path) => /\.(c|m)?js$/.test(path))) {
      for (const specifier of importedSpecifiers(readFileSync(join(unpacked, file), 'utf8'))) {
        const imported = packageNameOf(specifier);
        if (imported && !declared.has(imported)) missing.add(`${imported} (imported by ${file})`);
      }
    }
    expect([...missing]).toEqual([]);
  });

  it(`installs from its tarball into a fresh project with ${client}`, async () => {
    // What the example imports besides this package, a user following the README installs too.
    const alongside = new Set(spec.alongside ?? []);
    for (const specifier of importedSpecifiers(readmeExample(pkg.dir, spec.heading).code)) {
      const imported = packageNameOf(specifier);
      if (imported && imported !== name) alongside.add(imported);
    }
    await createConsumer({
      dir: consumer,
      name,
      tarballs,
      alongside: [...alongside],
      client,
      packages,
    });
  }, 600_000);

  it('type-checks a strict nodenext TypeScript consumer (skipLibCheck off)', async () => {
    const entries = moduleEntries(pkg.manifest);
    expect(entries.filter((entry) => !entry.typed).map((entry) => entry.subpath)).toEqual([]);
    const lines = entries.map(
      (entry, index) => `import * as entry${index} from '${specifierOf(name, entry.subpath)}';`,
    );
    lines.push(`export const entries = [${entries.map((_, index) => `entry${index}`).join(', ')}];`);
    writeFileSync(join(consumer, 'consumer.ts'), `${lines.join('\n')}\n`);
    const example = readmeExample(pkg.dir, spec.heading);
    const exampleFile = example.lang.startsWith('j') ? 'example.js' : 'example.ts';
    writeFileSync(join(consumer, exampleFile), example.code);
    const files = exampleFile === 'example.ts' ? ['consumer.ts', 'example.ts'] : ['consumer.ts'];
    writeConsumerTsconfig(consumer, files, spec.dom === true);
    const checked = await run(join(consumer, 'node_modules', '.bin', 'tsc'), ['--noEmit', '-p', '.'], {
      cwd: consumer,
    });
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
  }, 300_000);

  it('runs its README example as written', async () => {
    if (spec.notRun) {
      // Said in the spec why not, and what ran instead (see examples.ts).
      await spec.notRun.instead({ consumer, name });
      return;
    }
    const example = readmeExample(pkg.dir, spec.heading);
    let script = 'example.js';
    if (!example.lang.startsWith('j')) {
      // The example as a TypeScript user runs it: compiled by tsc (checked in the test above), then run by node.
      await runOk(join(consumer, 'node_modules', '.bin', 'tsc'), ['-p', '.', '--noCheck'], { cwd: consumer });
      script = join('out', 'example.js');
    }
    const output = await runExample({ consumer, script, spec });
    const promised = promisedOutput(example.code);
    const lines = output.split('\n').map((line) => line.trim());
    for (const line of promised) expect(lines, `the example prints "${line}"`).toContain(line);
    await spec.also?.({ consumer, name });
  }, 300_000);

  it('answers import() and require() as its README says', async () => {
    const entries = moduleEntries(pkg.manifest).map((entry) => specifierOf(name, entry.subpath));
    if (spec.browserOnly) {
      // A browser module (it touches `window` on import): Node is not where it runs; the example test loads it.
      expect(requireClaim(pkg.dir), 'the README says what require() does').toBeUndefined();
      return;
    }
    writeFileSync(
      join(consumer, 'load.mjs'),
      `import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const out = {};
for (const specifier of ${JSON.stringify(entries)}) {
  const imported = Object.keys(await import(specifier)).sort();
  let required;
  try { required = { ok: Object.keys(require(specifier)).filter((k) => k !== '__esModule' && k !== 'module.exports').sort() }; }
  catch (error) { required = { code: error.code, message: error.message.split('\\n')[0] }; }
  out[specifier] = { imported, required };
}
console.log(JSON.stringify(out));
`,
    );
    const loaded = await runOk('node', ['load.mjs'], { cwd: consumer });
    const results = JSON.parse(loaded.stdout) as Record<
      string,
      { imported: string[]; required: { ok?: string[]; code?: string; message?: string } }
    >;
    const claim = requireClaim(pkg.dir);
    expect(
      claim,
      'the README says what require() does ("`require()` works … require(esm)" or fails with)',
    ).toBeDefined();
    for (const [specifier, result] of Object.entries(results)) {
      expect(result.imported.length, `${specifier} has exports`).toBeGreaterThan(0);
      if (claim?.works) expect(result.required, `require('${specifier}')`).toEqual({ ok: result.imported });
      else
        expect(result.required.code, `require('${specifier}') fails: ${result.required.message}`).toBe(
          claim?.code,
        );
    }
  }, 120_000);
});
