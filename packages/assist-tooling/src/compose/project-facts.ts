import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { execCommand, type Project, readPackageJson, runScriptCommand } from '../project.js';

/** How the project's own modules are loaded at run time. */
export type ModuleKind = 'esm' | 'commonjs';

/** The unit-test runners guidelines know about (`node-test` is `node --test` or `tsx --test`). */
export type TestRunner = 'vitest' | 'jest' | 'node-test';

/** What the project's tsconfig says, after following `extends`. */
export interface TsconfigFacts {
  /** The tsconfig the options were read from, relative to the root. */
  file: string;
  /** Whether `strict` is on (set, or the default of TypeScript 6 and later). */
  strict: boolean;
  module: string | null;
  moduleResolution: string | null;
  verbatimModuleSyntax: boolean;
  erasableSyntaxOnly: boolean;
  /** Set when `baseUrl` is used (deprecated in TypeScript 6, gone in 7). */
  baseUrl: boolean;
}

/** Facts about a project that decide what its guidelines may say; every field is read from its files. */
export interface ProjectFacts {
  /** The Node version or range the project declares (`.nvmrc`, `.node-version`, `engines.node`), else null. */
  node: string | null;
  module: ModuleKind;
  tsconfig: TsconfigFacts | null;
  /** A command that type-checks the whole repo, or null when there is nothing to check. */
  typecheck: string | null;
  testRunner: TestRunner | null;
  /** The command that runs the unit tests, or null without a runner. */
  test: string | null;
  env: {
    /** dotenv (or dotenv-flow, dotenvx, dotenv-cli) loads `.env` files. */
    dotenv: boolean;
    /** A script runs Node with `--env-file`. */
    envFile: boolean;
  };
  workspace: { nx: boolean; turbo: boolean };
}

type CompilerOptions = Record<string, unknown>;

interface Tsconfig {
  options: CompilerOptions;
  files: unknown;
  references: { path: string }[];
}

function readJsonc(file: string): Record<string, unknown> | undefined {
  try {
    const data: unknown = parseJsonc(readFileSync(file, 'utf8'));
    return data !== null && typeof data === 'object' ? (data as Record<string, unknown>) : undefined;
  } catch {
    // An unreadable tsconfig tells us nothing; the facts fall back to package.json.
    return undefined;
  }
}

function resolveExtends(spec: string, from: string): string | undefined {
  if (spec.startsWith('.') || spec.startsWith('/')) {
    const path = join(dirname(from), spec);
    return existsSync(path) ? path : existsSync(`${path}.json`) ? `${path}.json` : undefined;
  }
  const require = createRequire(from);
  for (const candidate of [spec, `${spec}.json`, `${spec}/tsconfig.json`]) {
    try {
      return require.resolve(candidate);
    } catch {
      // Try the next spelling TypeScript accepts for a package tsconfig.
    }
  }
  return undefined;
}

/** Reads a tsconfig with its `extends` chain merged (later files win), guarding against cycles. */
function readTsconfig(file: string, seen = new Set<string>()): Tsconfig | undefined {
  if (seen.has(file)) return undefined;
  seen.add(file);
  const raw = readJsonc(file);
  if (raw === undefined) return undefined;
  const bases = Array.isArray(raw.extends) ? raw.extends : raw.extends === undefined ? [] : [raw.extends];
  let options: CompilerOptions = {};
  for (const base of bases) {
    const path = typeof base === 'string' ? resolveExtends(base, file) : undefined;
    const inherited = path ? readTsconfig(path, seen) : undefined;
    if (inherited) options = { ...options, ...inherited.options };
  }
  const own = raw.compilerOptions;
  if (own !== null && typeof own === 'object') options = { ...options, ...(own as CompilerOptions) };
  const references = Array.isArray(raw.references)
    ? raw.references.filter(
        (ref): ref is { path: string } =>
          ref !== null && typeof ref === 'object' && typeof (ref as { path?: unknown }).path === 'string',
      )
    : [];
  return { options, files: raw.files, references };
}

function referencePath(from: string, ref: string): string {
  const path = join(dirname(from), ref);
  return existsSync(path) && statSync(path).isDirectory() ? join(path, 'tsconfig.json') : path;
}

const lower = (value: unknown): string | null => (typeof value === 'string' ? value.toLowerCase() : null);

function tsconfigFacts(root: string, tsMajor: number | undefined) {
  const file = join(root, 'tsconfig.json');
  if (!existsSync(file)) return { facts: null, references: [] as string[], solution: false };
  const config = readTsconfig(file);
  if (config === undefined) return { facts: null, references: [], solution: false };
  const references = config.references.map((ref) => referencePath(file, ref.path));
  const solution = Array.isArray(config.files) && config.files.length === 0 && references.length > 0;
  // A solution-style root checks nothing itself: its options come from the main referenced project.
  const main = solution
    ? (references.find((path) => !/spec|test|e2e/i.test(relative(root, path))) ?? references[0])
    : undefined;
  const effective = main ? readTsconfig(main) : config;
  const options = { ...config.options, ...(effective?.options ?? {}) };
  const facts: TsconfigFacts = {
    file: relative(root, main ?? file)
      .split('\\')
      .join('/'),
    strict: typeof options.strict === 'boolean' ? options.strict : (tsMajor ?? 5) >= 6,
    module: lower(options.module) ?? ((tsMajor ?? 5) >= 6 ? 'esnext' : null),
    moduleResolution: lower(options.moduleResolution),
    verbatimModuleSyntax: options.verbatimModuleSyntax === true,
    erasableSyntaxOnly: options.erasableSyntaxOnly === true,
    baseUrl: typeof options.baseUrl === 'string',
  };
  return { facts, references, solution };
}

function moduleKind(tsconfig: TsconfigFacts | null, packageType: string | undefined): ModuleKind {
  const fromPackage: ModuleKind = packageType === 'module' ? 'esm' : 'commonjs';
  const module = tsconfig?.module;
  if (module === null || module === undefined) return fromPackage;
  if (module === 'commonjs') return 'commonjs';
  if (/^node(16|18|20|next)$/.test(module)) return fromPackage;
  return 'esm';
}

const TYPECHECK_SCRIPTS = ['typecheck', 'type-check', 'check-types', 'types:check', 'tsc'];

function typecheckCommand(project: Project, root: string, ts: ReturnType<typeof tsconfigFacts>) {
  const named = TYPECHECK_SCRIPTS.find((name) => project.scripts[name] !== undefined);
  if (named) return runScriptCommand(project.packageManager, named);
  if (ts.facts === null || !project.packages.has('typescript')) return null;
  if (!ts.solution) return execCommand(project.packageManager, 'tsc --noEmit');
  // `tsc -b` needs every referenced project to be composite; otherwise check each project on its own.
  const composite = ts.references.every((path) => readTsconfig(path)?.options.composite === true);
  if (composite) return execCommand(project.packageManager, 'tsc -b');
  return ts.references
    .map((path) =>
      execCommand(project.packageManager, `tsc --noEmit -p ${relative(root, path).split('\\').join('/')}`),
    )
    .join(' && ');
}

const RUNNER_PATTERNS: [TestRunner, RegExp][] = [
  ['vitest', /\bvitest\b/],
  ['jest', /\bjest\b/],
  ['node-test', /\b(node|tsx)\b[^|&;]*\s--test\b/],
];

/** The npm init placeholder test script, which runs nothing. */
const PLACEHOLDER_TEST = /no test specified/;

function testFacts(project: Project): { runner: TestRunner | null; test: string | null } {
  const scripts = Object.entries(project.scripts).filter(([, command]) => !PLACEHOLDER_TEST.test(command));
  const ordered = [
    ...scripts.filter(([name]) => name === 'test'),
    ...scripts.filter(([name]) => name !== 'test'),
  ];
  for (const [name, command] of ordered) {
    const match = RUNNER_PATTERNS.find(([, pattern]) => pattern.test(command));
    if (match) return { runner: match[0], test: runScriptCommand(project.packageManager, name) };
  }
  const direct = (name: string) => project.packages.get(name)?.direct === true;
  const runner: TestRunner | null = direct('vitest') ? 'vitest' : direct('jest') ? 'jest' : null;
  if (runner === null) return { runner, test: null };
  // A test script that names no runner (`nx test api`) still runs the installed one.
  if (scripts.some(([name]) => name === 'test')) {
    return { runner, test: runScriptCommand(project.packageManager, 'test') };
  }
  return { runner, test: execCommand(project.packageManager, runner === 'vitest' ? 'vitest run' : 'jest') };
}

const DOTENV_PACKAGES = ['dotenv', 'dotenv-flow', 'dotenv-cli', '@dotenvx/dotenvx'];

/** Reads the facts guidelines depend on: module kind, tsconfig, type-check and test commands, env loading. */
export function readProjectFacts(project: Project): ProjectFacts {
  const root = project.root;
  const manifest = readPackageJson(root) as { type?: string } | undefined;
  const tsVersion = project.packages.get('typescript')?.version;
  const ts = tsconfigFacts(root, tsVersion ? Number.parseInt(tsVersion, 10) : undefined);
  const { runner, test } = testFacts(project);
  const scripts = Object.values(project.scripts);
  const direct = (name: string) => project.packages.get(name)?.direct === true;
  return {
    node: project.nodeDeclared ?? null,
    module: moduleKind(ts.facts, manifest?.type),
    tsconfig: ts.facts,
    typecheck: typecheckCommand(project, root, ts),
    testRunner: runner,
    test,
    env: {
      dotenv: DOTENV_PACKAGES.some(direct) || scripts.some((script) => /\bdotenv\b/.test(script)),
      envFile: scripts.some((script) => /--env-file(-if-exists)?\b/.test(script)),
    },
    workspace: {
      nx: existsSync(join(root, 'nx.json')) || direct('nx'),
      turbo: existsSync(join(root, 'turbo.json')) || direct('turbo'),
    },
  };
}
