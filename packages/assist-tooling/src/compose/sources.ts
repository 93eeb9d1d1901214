import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { type InstalledPackage, type Project, readPackageJson } from '../project.js';
import { BUNDLED, type BundledEntry, FIRST_PARTY_SCOPE, SELF } from './bundled.js';

/** Where a guideline or skill came from; later origins override earlier ones. */
export type SourceOrigin = 'bundled' | 'package' | 'pack' | 'user';

/** A guideline file found during discovery, before rendering. */
export interface GuidelineSource {
  /** The section name shown in the composed file, e.g. `hono/v4/core`. */
  key: string;
  /** The override path: an app file at `.ai/guidelines/{path}.md` replaces this one. */
  path: string;
  file: string;
  origin: SourceOrigin;
  /** The package that shipped it (package and pack sources). */
  package?: string;
}

/** A skill folder found during discovery, before its SKILL file is read. */
export interface SkillSource {
  dir: string;
  origin: SourceOrigin;
  package?: string;
}

/** A package in node_modules that ships `resources/assist` guidelines, skills or packs. */
export interface PackageResources {
  name: string;
  version: string;
  firstParty: boolean;
  /** The installed package's folder. */
  packageDir: string;
  /** The package's `resources/assist` folder. */
  dir: string;
  /** Names of the packages its packs target (whether installed or not). */
  packs: string[];
  /** The module named by its package.json `assist.setup`, if it registers agents. */
  setup: string | undefined;
}

const TEMPLATE = /\.(md|twig)$/;

function isDir(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

function subdirs(dir: string): string[] {
  if (!isDir(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** Template files under a folder as relative paths (recursive when asked), sorted. */
function templates(dir: string, recursive: boolean, prefix = ''): string[] {
  if (!isDir(dir)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile() && TEMPLATE.test(entry.name)) found.push(prefix + entry.name);
    if (entry.isDirectory() && recursive)
      found.push(...templates(join(dir, entry.name), true, `${prefix}${entry.name}/`));
  }
  return found.sort((a, b) =>
    a === 'core.md' || a === 'core.twig' ? -1 : b.startsWith('core.') ? 1 : a.localeCompare(b),
  );
}

const stripExt = (file: string): string => file.replace(TEMPLATE, '');

function guidelineFiles(
  dir: string,
  options: { path: string; key: string; origin: SourceOrigin; package?: string; recursive?: boolean },
): GuidelineSource[] {
  return templates(dir, options.recursive ?? false).map((rel) => ({
    key: `${options.key}/${stripExt(rel)}`,
    path: `${options.path}/${stripExt(rel)}`,
    file: join(dir, rel),
    origin: options.origin,
    ...(options.package ? { package: options.package } : {}),
  }));
}

function skillDirs(dir: string, origin: SourceOrigin, pkg?: string): SkillSource[] {
  return subdirs(dir)
    .filter((name) => !/^\d+$/.test(name))
    .map((name) => ({ dir: join(dir, name), origin, ...(pkg ? { package: pkg } : {}) }));
}

function counts(pkg: InstalledPackage | undefined, dependencies: 'direct' | 'all', direct = false): boolean {
  return pkg !== undefined && (pkg.direct || (dependencies === 'all' && !direct));
}

/** Whether a bundled entry applies: undefined when not, else the version whose major folder to add (if any). */
function bundledApplies(
  entry: BundledEntry,
  project: Project,
  dependencies: 'direct' | 'all',
): { version: string | undefined } | undefined {
  if (entry.unless?.some((name) => counts(project.packages.get(name), dependencies))) return undefined;
  const names =
    entry.package === undefined ? [] : typeof entry.package === 'string' ? [entry.package] : entry.package;
  for (const name of names) {
    const pkg = project.packages.get(name);
    if (counts(pkg, dependencies, entry.direct)) return { version: pkg?.version };
  }
  return entry.when?.(project) ? { version: undefined } : undefined;
}

/** Bundled guidelines and skills for a key: its core files, then the folder of the installed major. */
function versioned(
  resources: string,
  key: string,
  version: string | undefined,
): { guidelines: GuidelineSource[]; skills: SkillSource[] } {
  const base = join(resources, 'guidelines', key);
  const guidelines = guidelineFiles(base, { path: key, key, origin: 'bundled' });
  const skills = skillDirs(join(resources, 'skills', key), 'bundled');
  if (version === undefined) return { guidelines, skills };
  const major = String(semver.major(version));
  guidelines.push(
    ...guidelineFiles(join(base, major), {
      path: `${key}/${major}`,
      key: `${key}/v${major}`,
      origin: 'bundled',
    }),
  );
  skills.push(...skillDirs(join(resources, 'skills', key, major), 'bundled'));
  return { guidelines, skills };
}

function packTargets(packDir: string): string[] {
  return subdirs(packDir).flatMap((name) =>
    name.startsWith('@') ? subdirs(join(packDir, name)).map((inner) => `${name}/${inner}`) : [name],
  );
}

/** Lists the installed packages that ship `resources/assist` content or an `assist.setup` hook. */
export function findPackageResources(project: Project, dependencies: 'direct' | 'all'): PackageResources[] {
  const found: PackageResources[] = [];
  for (const pkg of project.packages.values()) {
    if (pkg.name === SELF || !counts(pkg, dependencies)) continue;
    const dir = join(pkg.dir, 'resources', 'assist');
    const manifest = readPackageJson(pkg.dir) as { assist?: { setup?: unknown } } | undefined;
    const setup = typeof manifest?.assist?.setup === 'string' ? manifest.assist.setup : undefined;
    if (!isDir(dir) && setup === undefined) continue;
    found.push({
      name: pkg.name,
      version: pkg.version,
      firstParty: pkg.name.startsWith(FIRST_PARTY_SCOPE),
      packageDir: pkg.dir,
      dir,
      packs: packTargets(join(dir, 'pack')),
      setup,
    });
  }
  return found;
}

/** What discovery needs besides the project. */
export interface DiscoverOptions {
  /** The bundled resources folder (holding `guidelines/` and `skills/`). */
  resourcesDir: string;
  dependencies: 'direct' | 'all';
  /** The packages whose resources are composed (first-party ones and the third-party ones opted in). */
  packages: readonly PackageResources[];
}

/** Everything discovery found, in composition order; later entries override earlier ones. */
export interface DiscoveredSources {
  guidelines: GuidelineSource[];
  skills: SkillSource[];
}

/**
 * Finds every guideline and skill that applies to a project: bundled ones by installed version, those
 * shipped by packages and packs, and the app's own `.ai/guidelines` and `.ai/skills`, which override
 * the others by path (guidelines) or by name (skills, resolved when they are read).
 */
export function discoverSources(project: Project, options: DiscoverOptions): DiscoveredSources {
  const { resourcesDir, dependencies } = options;
  const guidelines = guidelineFiles(join(resourcesDir, 'guidelines'), {
    path: '',
    key: '',
    origin: 'bundled',
  }).map((source) => ({ ...source, key: source.key.slice(1), path: source.path.slice(1) }));
  guidelines.push(
    ...guidelineFiles(join(resourcesDir, 'guidelines', 'assist'), {
      path: 'assist',
      key: 'assist',
      origin: 'bundled',
    }),
  );
  const skills: SkillSource[] = [];
  const add = (found: { guidelines: GuidelineSource[]; skills: SkillSource[] }): void => {
    guidelines.push(...found.guidelines);
    skills.push(...found.skills);
  };
  // Node's major guideline only when the project declares its Node; the running Node says nothing of it.
  add(versioned(resourcesDir, 'node', project.nodeDeclared === undefined ? undefined : project.nodeVersion));
  for (const entry of BUNDLED) {
    const applies = bundledApplies(entry, project, dependencies);
    if (applies !== undefined) add(versioned(resourcesDir, entry.key, applies.version));
  }
  for (const pkg of options.packages) {
    const origin = { origin: 'package' as const, package: pkg.name };
    guidelines.push(
      ...guidelineFiles(join(pkg.dir, 'guidelines'), {
        path: pkg.name,
        key: pkg.name,
        recursive: true,
        ...origin,
      }),
    );
    skills.push(...skillDirs(join(pkg.dir, 'skills'), 'package', pkg.name));
    for (const target of pkg.packs) {
      const installed = project.packages.get(target);
      if (installed === undefined) continue;
      const base = join(pkg.dir, 'pack', target);
      const major = String(semver.major(installed.version));
      const pack = { origin: 'pack' as const, package: pkg.name, recursive: true };
      guidelines.push(...guidelineFiles(join(base, 'guidelines'), { path: target, key: target, ...pack }));
      guidelines.push(
        ...guidelineFiles(join(base, major, 'guidelines'), {
          path: `${target}/${major}`,
          key: `${target}/v${major}`,
          ...pack,
        }),
      );
      skills.push(...skillDirs(join(base, 'skills'), 'pack', pkg.name));
      skills.push(...skillDirs(join(base, major, 'skills'), 'pack', pkg.name));
    }
  }
  const merged = overrideByPath(guidelines, join(project.root, '.ai', 'guidelines'));
  skills.push(...skillDirs(join(project.root, '.ai', 'skills'), 'user'));
  return { guidelines: merged, skills };
}

/** Applies later sources and the app's `.ai/guidelines` over earlier ones that share a path. */
function overrideByPath(sources: GuidelineSource[], userDir: string): GuidelineSource[] {
  const byPath = new Map<string, GuidelineSource>();
  for (const source of sources) {
    const earlier = byPath.get(source.path);
    byPath.set(source.path, earlier ? { ...source, key: earlier.key } : source);
  }
  const own: GuidelineSource[] = [];
  for (const rel of templates(userDir, true)) {
    const path = stripExt(rel);
    const file = join(userDir, rel);
    const earlier = byPath.get(path);
    if (earlier) byPath.set(path, { ...earlier, file, origin: 'user' });
    else own.push({ key: `.ai/${path}`, path, file, origin: 'user' });
  }
  return [...own, ...byPath.values()];
}
