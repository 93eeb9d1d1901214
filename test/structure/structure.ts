import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';

// TypeScript is a root devDependency; its compiler API parses sources without type-checking them.
const ts: typeof import('typescript') = createRequire(import.meta.url)('typescript');

/** The repository root (two levels above this folder). */
export const repoRoot = resolve(import.meta.dirname, '../..');

/** The longest a function may be, first line to last (issue 25). */
export const MAX_FUNCTION_LINES = 200;

/** A function-like node longer than the limit. */
export interface LongFunction {
  readonly file: string;
  readonly line: number;
  readonly name: string;
  readonly lines: number;
}

/** An `as unknown as` cast in a source file. */
export interface DoubleCast {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

/** Each package's and app's source folder, from the folder listing. */
export function sourceRoots(root = repoRoot): string[] {
  return ['packages', 'apps'].flatMap((group) => {
    const base = join(root, group);
    if (!existsSync(base)) return [];
    return readdirSync(base)
      .map((name) => join(base, name, 'src'))
      .filter((dir) => existsSync(dir) && statSync(dir).isDirectory());
  });
}

const isSource = (name: string) =>
  /\.(ts|mts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith('.d.ts');

/** Every source file under a folder (tests and declarations excluded). */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (isSource(entry.name)) out.push(path);
  }
  return out.sort();
}

function parse(file: string, text = readFileSync(file, 'utf8')) {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
}

function nameOf(node: import('typescript').Node): string {
  const named = node as { name?: import('typescript').Node };
  if (named.name) return named.name.getText();
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText();
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText();
  return '(anonymous)';
}

/** Functions (declarations, expressions, arrows, methods, accessors) longer than `max` lines in one file. */
export function longFunctions(file: string, text?: string, max = MAX_FUNCTION_LINES): LongFunction[] {
  const source = parse(file, text);
  const found: LongFunction[] = [];
  const visit = (node: import('typescript').Node) => {
    if (ts.isFunctionLike(node) && (node as { body?: unknown }).body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > max) found.push({ file, line: first + 1, name: nameOf(node), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `as unknown as` casts in one file. */
export function doubleCasts(file: string, text?: string): DoubleCast[] {
  const source = parse(file, text);
  const found: DoubleCast[] = [];
  const visit = (node: import('typescript').Node) => {
    if (
      ts.isAsExpression(node) &&
      ts.isAsExpression(node.expression) &&
      node.expression.type.kind === ts.SyntaxKind.UnknownKeyword
    ) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      found.push({ file, line, text: node.getText(source).split('\n')[0]?.slice(0, 120) ?? '' });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The relative imports and re-exports of a file (type-only ones too), resolved to files that exist. */
export function localImports(file: string, text?: string): string[] {
  const source = parse(file, text);
  const specifiers: string[] = [];
  for (const statement of source.statements) {
    if (
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
      statement.moduleSpecifier &&
      ts.isStringLiteral(statement.moduleSpecifier)
    ) {
      specifiers.push(statement.moduleSpecifier.text);
    }
  }
  // Dynamic import() and import('x') types count too: a cycle through them is still a cycle a reader must follow.
  const visit = (node: import('typescript').Node) => {
    if (
      (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) ||
      ts.isImportTypeNode(node)
    ) {
      const argument = ts.isCallExpression(node)
        ? node.arguments[0]
        : ts.isLiteralTypeNode(node.argument)
          ? node.argument.literal
          : undefined;
      if (argument && ts.isStringLiteral(argument)) specifiers.push(argument.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => resolveLocal(dirname(file), specifier))
    .filter((target): target is string => target !== undefined);
}

function resolveLocal(from: string, specifier: string): string | undefined {
  const base = resolve(from, specifier);
  const candidates = [
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.mjs$/, '.mts'),
    base.replace(/\.js$/, '.tsx'),
    base,
    `${base}.ts`,
    join(base, 'index.ts'),
  ];
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

/**
 * Import circles among a set of files, each reported once as the list of files it runs through (relative to
 * `root`), starting from its alphabetically first file.
 */
export function importCircles(
  files: readonly string[],
  root: string,
  read?: (file: string) => string,
): string[][] {
  const graph = new Map(files.map((file) => [file, localImports(file, read?.(file))]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let counter = 0;
  // Tarjan's strongly connected components: every component of more than one file (or a file importing itself)
  // is a circle.
  const connect = (file: string) => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        connect(next);
        low.set(file, Math.min(low.get(file) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file) as number, index.get(next) as number));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      const selfLoop = component.length === 1 && (graph.get(file) ?? []).includes(file);
      if (component.length > 1 || selfLoop) {
        circles.push(component.map((entry) => relative(root, entry)).sort());
      }
    }
  };
  for (const file of files) if (!index.has(file)) connect(file);
  return circles;
}
