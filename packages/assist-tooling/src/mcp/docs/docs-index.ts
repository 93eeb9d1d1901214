import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import MiniSearch, { type Options } from 'minisearch';
import { type InstalledPackage, readProject } from '../../project.js';
import { readDeclarationDocs, relativeDeclarationFiles, resolveDeclaration } from './dts-docs.js';
import { changelogSection, type MarkdownSection, splitMarkdown } from './markdown-sections.js';

/** Which packages the documentation index covers: those package.json names, or every installed one. */
export type DocsScope = 'direct' | 'all';

/** Where a piece of documentation came from. */
export type DocKind = 'readme' | 'docs' | 'changelog' | 'api';

/** One indexed piece of documentation: a Markdown section or one declaration's JSDoc. */
export interface DocDocument {
  id: number;
  package: string;
  version: string;
  /** Path inside the package, e.g. `README.md` or `dist/index.d.ts`. */
  file: string;
  heading: string;
  kind: DocKind;
  text: string;
  /** The start of `text`, stored for snippets (the whole text is indexed, not stored). */
  excerpt: string;
}

/** A document as read from a package, before it is numbered for the index. */
export type DocSource = Omit<DocDocument, 'id' | 'excerpt'>;

/** One search hit: where the text is and a short piece of it around the words asked for. */
export interface DocHit {
  package: string;
  version: string;
  file: string;
  heading: string;
  kind: DocKind;
  snippet: string;
  /** Reads the whole file through the MCP server's `resources/read`. */
  uri: string;
}

/** How the index that answered was obtained. */
export interface DocsIndexInfo {
  scope: DocsScope;
  packages: number;
  documents: number;
  /** True when it was loaded from `.assist/docs/` instead of built. */
  fromCache: boolean;
  builtAt: string;
  /** How long building (or loading) took. */
  ms: number;
}

/** The assist state folder (git-ignored) under the project root. */
export const STATE_DIR = '.assist';
/** Bumped when the stored shape or the reading rules change, so old caches are rebuilt. */
const FORMAT = 1;
const LOCKFILES = ['package-lock.json', 'pnpm-lock.yaml', 'yarn.lock', 'bun.lock', 'npm-shrinkwrap.json'];
const MAX_TEXT = 12_000;
const MAX_STORED = 2_000;
const MAX_DOC_FILES = 80;
const MAX_DTS_FILES = 100;
const MAX_DTS_BYTES = 4 * 1024 * 1024;
const MAX_API_DOCS = 3_000;
const SNIPPET = 240;

const STOP_WORDS = new Set(
  'a an and are as at be by do does for from how i in is it of on or the this to use using what when where which with'.split(
    ' ',
  ),
);

/** Words, and the parts of camelCase and snake_case words, so `create widget` finds `createWidget`. */
function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const word of text.split(/[^\p{L}\p{N}_$]+/u)) {
    if (word === '') continue;
    tokens.push(word);
    const parts = word.split(/_+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/).filter(Boolean);
    if (parts.length > 1) tokens.push(...parts);
  }
  return tokens;
}

const processTerm = (term: string): string | null => {
  const lower = term.toLowerCase();
  return STOP_WORDS.has(lower) ? null : lower;
};

const SEARCH_OPTIONS: Options<DocDocument> = {
  fields: ['heading', 'text', 'package'],
  storeFields: ['package', 'version', 'file', 'heading', 'kind', 'excerpt'],
  tokenize,
  processTerm,
  searchOptions: { boost: { heading: 3, package: 2 }, prefix: true, fuzzy: 0.15, tokenize, processTerm },
};

interface CacheFile {
  format: number;
  key: string;
  builtAt: string;
  packages: { name: string; version: string }[];
  documents: number;
  index: unknown;
}

interface LoadedIndex {
  key: string;
  search: MiniSearch<DocDocument>;
  packages: { name: string; version: string }[];
  info: DocsIndexInfo;
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    // Unreadable documentation is left out of the index; the rest of the package still counts.
    return undefined;
  }
}

function sectionDocs(
  pkg: InstalledPackage,
  file: string,
  kind: DocKind,
  sections: readonly MarkdownSection[],
): DocSource[] {
  return sections
    .filter((section) => section.body !== '')
    .map((section) => ({
      package: pkg.name,
      version: pkg.version,
      file,
      kind,
      heading: section.trail.slice(-3).join(' › ') || file,
      text: section.body.slice(0, MAX_TEXT),
    }));
}

async function markdownFiles(dir: string, found: string[] = []): Promise<string[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    // No docs folder (or not readable): nothing to add.
    return found;
  }
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (found.length >= MAX_DOC_FILES) break;
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules') await markdownFiles(path, found);
    else if (entry.isFile() && /\.mdx?$/i.test(entry.name)) found.push(path);
  }
  return found;
}

/** The declaration files a package names for its types: `types`, `typings`, every `types` of `exports`. */
function typeEntries(dir: string, manifest: Record<string, unknown>): string[] {
  const named: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') return;
    if (Array.isArray(value)) for (const item of value) collect(item);
    else if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'types' && typeof inner === 'string') named.push(inner);
        else collect(inner);
      }
    }
  };
  for (const key of ['types', 'typings'] as const)
    if (typeof manifest[key] === 'string') named.push(manifest[key]);
  collect(manifest.exports);
  if (named.length === 0 && typeof manifest.main === 'string') named.push(manifest.main);
  if (named.length === 0) named.push('index.d.ts');
  const files: string[] = [];
  for (const path of named) {
    const resolved = resolveDeclaration(join(dir, path));
    if (resolved !== undefined && !files.includes(resolved)) files.push(resolved);
  }
  return files;
}

async function apiDocs(pkg: InstalledPackage, manifest: Record<string, unknown>) {
  const queue = typeEntries(pkg.dir, manifest);
  const docs: DocSource[] = [];
  let bytes = 0;
  for (let i = 0; i < queue.length && i < MAX_DTS_FILES && bytes < MAX_DTS_BYTES; i++) {
    const path = queue[i] ?? '';
    const text = await readText(path);
    if (text === undefined) continue;
    bytes += text.length;
    for (const next of relativeDeclarationFiles(text, path)) {
      if (next.startsWith(pkg.dir) && !queue.includes(next)) queue.push(next);
    }
    const file = relative(pkg.dir, path).split('\\').join('/');
    for (const declaration of readDeclarationDocs(text)) {
      if (docs.length >= MAX_API_DOCS) break;
      docs.push({
        package: pkg.name,
        version: pkg.version,
        file,
        kind: 'api',
        heading: declaration.signature,
        text: `${declaration.name}\n${declaration.doc}`.slice(0, MAX_TEXT),
      });
    }
  }
  return docs;
}

/** Everything indexed for one package: README, `docs/**.md`, its CHANGELOG section, declaration JSDoc. */
export async function packageDocuments(pkg: InstalledPackage): Promise<DocSource[]> {
  let names: string[];
  try {
    names = await readdir(pkg.dir);
  } catch {
    // A dangling link in node_modules: the package has nothing to read.
    return [];
  }
  const manifest = JSON.parse((await readText(join(pkg.dir, 'package.json'))) ?? '{}') as Record<
    string,
    unknown
  >;
  const docs: DocSource[] = [];
  const readme = names.find((name) => /^readme(\.(md|markdown|mdx))?$/i.test(name));
  if (readme !== undefined) {
    const text = await readText(join(pkg.dir, readme));
    if (text !== undefined) docs.push(...sectionDocs(pkg, readme, 'readme', splitMarkdown(text)));
  }
  for (const path of await markdownFiles(join(pkg.dir, 'docs'))) {
    const text = await readText(path);
    const file = relative(pkg.dir, path).split('\\').join('/');
    if (text !== undefined) docs.push(...sectionDocs(pkg, file, 'docs', splitMarkdown(text)));
  }
  const changelog = names.find((name) => /^(changelog|history|changes)(\.(md|markdown))?$/i.test(name));
  if (changelog !== undefined) {
    const text = await readText(join(pkg.dir, changelog));
    const section = text === undefined ? undefined : changelogSection(text, pkg.version);
    if (section !== undefined) docs.push(...sectionDocs(pkg, changelog, 'changelog', [section]));
  }
  docs.push(...(await apiDocs(pkg, manifest)));
  return docs;
}

async function lockfileText(root: string): Promise<string> {
  for (const name of LOCKFILES) {
    const text = await readText(join(root, name));
    if (text !== undefined) return `${name}\n${text}`;
  }
  return '';
}

function packagesIn(root: string, scope: DocsScope): InstalledPackage[] {
  const project = readProject(root);
  if (!project.ok) return [];
  return [...project.value.packages.values()].filter((pkg) => scope === 'all' || pkg.direct);
}

async function cacheKey(root: string, scope: DocsScope, packages: readonly InstalledPackage[]) {
  const hash = createHash('sha256');
  hash.update(`${FORMAT}\n${scope}\n`);
  hash.update(await lockfileText(root));
  for (const pkg of packages) hash.update(`\n${pkg.name}@${pkg.version}`);
  return hash.digest('hex');
}

const cachePath = (root: string, scope: DocsScope) => join(root, STATE_DIR, 'docs', `${scope}.json`);

async function loadCache(root: string, scope: DocsScope, key: string): Promise<LoadedIndex | undefined> {
  const started = performance.now();
  const text = await readText(cachePath(root, scope));
  if (text === undefined) return undefined;
  try {
    const cache = JSON.parse(text) as CacheFile;
    if (cache.format !== FORMAT || cache.key !== key) return undefined;
    const search = await MiniSearch.loadJSONAsync<DocDocument>(JSON.stringify(cache.index), SEARCH_OPTIONS);
    return {
      key,
      search,
      packages: cache.packages,
      info: {
        scope,
        packages: cache.packages.length,
        documents: cache.documents,
        fromCache: true,
        builtAt: cache.builtAt,
        ms: Math.round(performance.now() - started),
      },
    };
  } catch {
    // A damaged cache is rebuilt.
    return undefined;
  }
}

async function build(
  root: string,
  scope: DocsScope,
  key: string,
  packages: readonly InstalledPackage[],
): Promise<LoadedIndex> {
  const started = performance.now();
  const search = new MiniSearch<DocDocument>(SEARCH_OPTIONS);
  let id = 0;
  for (const pkg of packages) {
    const docs = (await packageDocuments(pkg)).map((doc) => ({
      ...doc,
      id: id++,
      excerpt: doc.text.slice(0, MAX_STORED),
    }));
    await search.addAllAsync(docs, { chunkSize: 500 });
  }
  const builtAt = new Date().toISOString();
  const list = packages.map((pkg) => ({ name: pkg.name, version: pkg.version }));
  const cache: CacheFile = { format: FORMAT, key, builtAt, packages: list, documents: id, index: search };
  const path = cachePath(root, scope);
  try {
    await mkdir(join(root, STATE_DIR, 'docs'), { recursive: true });
    // Each agent runs its own server: a file per process, renamed into place, so none reads a half-written one.
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(cache));
    await rename(temporary, path);
  } catch {
    // A read-only project still gets answers; the index is just built again next time.
  }
  return {
    key,
    search,
    packages: list,
    info: {
      scope,
      packages: list.length,
      documents: id,
      fromCache: false,
      builtAt,
      ms: Math.round(performance.now() - started),
    },
  };
}

function snippetOf(text: string, terms: readonly string[]): string {
  const lower = text.toLowerCase();
  const at = terms
    .map((term) => lower.indexOf(term.toLowerCase()))
    .filter((index) => index >= 0)
    .sort((a, b) => a - b)[0];
  const start = at === undefined ? 0 : Math.max(0, at - 60);
  const piece = text
    .slice(start, start + SNIPPET)
    .replace(/\s+/g, ' ')
    .trim();
  return `${start > 0 ? '…' : ''}${piece}${start + SNIPPET < text.length ? '…' : ''}`;
}

/** What {@link DocsSearch.search} answers. */
export interface DocsAnswer {
  hits: DocHit[];
  index: DocsIndexInfo;
  notes: string[];
}

/** Options of one documentation search. */
export interface DocsQuery {
  /** Only hits from these packages. */
  packages?: readonly string[];
  scope?: DocsScope;
  limit?: number;
}

/** The URI under which the MCP server serves one file of an installed package's documentation. */
export function docsUri(pkg: string, file: string): string {
  return `assist://docs/${pkg}/${file}`;
}

/**
 * Searches the documentation of a project's installed packages. The index is built on first use (or by
 * {@link DocsSearch.warm}), cached in `.assist/docs/`, and rebuilt when the lockfile or an installed version
 * changes.
 */
export class DocsSearch {
  readonly #root: string;
  readonly #loading = new Map<DocsScope, { key: string; index: Promise<LoadedIndex> }>();

  constructor(root: string) {
    this.#root = root;
  }

  /** Loads or builds the index of a scope if it is missing or out of date; resolves when it is ready. */
  async warm(scope: DocsScope = 'direct'): Promise<DocsIndexInfo> {
    return (await this.#ready(scope)).info;
  }

  async #ready(scope: DocsScope): Promise<LoadedIndex> {
    const packages = packagesIn(this.#root, scope);
    const key = await cacheKey(this.#root, scope, packages);
    const current = this.#loading.get(scope);
    if (current?.key === key) return current.index;
    const index = (async () =>
      (await loadCache(this.#root, scope, key)) ?? build(this.#root, scope, key, packages))();
    this.#loading.set(scope, { key, index });
    // A failed build is tried again on the next call.
    index.catch(() => this.#loading.delete(scope));
    return index;
  }

  /** Finds documentation for a query, best first. */
  async search(query: string, options: DocsQuery = {}): Promise<DocsAnswer> {
    const scope = options.scope ?? 'direct';
    const loaded = await this.#ready(scope);
    const notes: string[] = [];
    const wanted = options.packages?.length ? new Set(options.packages) : undefined;
    if (wanted) {
      const indexed = new Set(loaded.packages.map((pkg) => pkg.name));
      const missing = [...wanted].filter((name) => !indexed.has(name));
      if (missing.length > 0) {
        const installed = packagesIn(this.#root, 'all').map((pkg) => pkg.name);
        notes.push(
          ...missing.map((name) =>
            installed.includes(name)
              ? `${name} is installed but not a direct dependency: search with scope "all".`
              : `${name} is not installed in this project.`,
          ),
        );
      }
    }
    const results = loaded.search.search(query, wanted ? { filter: (hit) => wanted.has(hit.package) } : {});
    const hits = results.slice(0, options.limit ?? 10).map((hit) => ({
      package: String(hit.package),
      version: String(hit.version),
      file: String(hit.file),
      heading: String(hit.heading),
      kind: hit.kind as DocKind,
      snippet: snippetOf(String(hit.excerpt), hit.terms),
      uri: docsUri(String(hit.package), String(hit.file)),
    }));
    return { hits, index: loaded.info, notes };
  }
}

/** Whether a path inside a package may be served as documentation (Markdown or declarations, no `..`). */
export function isDocsFile(file: string): boolean {
  return (
    !file.split('/').includes('..') &&
    (/\.(mdx?|markdown|d\.[cm]?ts)$/i.test(file) || /^(readme|changelog|history|changes)$/i.test(file))
  );
}

/** Reads one documentation file of an installed package, or undefined when it is not one. */
export async function readDocsFile(root: string, pkg: string, file: string): Promise<string | undefined> {
  const installed = packagesIn(root, 'all').find((candidate) => candidate.name === pkg);
  if (installed === undefined || !isDocsFile(file)) return undefined;
  const path = join(installed.dir, file);
  if (!(await stat(path).catch(() => undefined))?.isFile()) return undefined;
  return readText(path);
}
