import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { AssistError, fail, ok, type Result } from '../errors.js';
import { parseFrontMatter } from './front-matter.js';
import { type ScopedBlock, splitScoped } from './scoped.js';
import type { GuidelineSource, SkillSource, SourceOrigin } from './sources.js';
import { renderTemplate, type TemplateHelper, tidyMarkdown } from './template.js';

/** One section of a composed guideline file. */
export interface GuidelineSection {
  key: string;
  text: string;
}

/** A path-scoped rule made from one or more `@scoped` blocks that share the same globs. */
export interface ScopedRule {
  /** File-name stem, unique among the rules. */
  slug: string;
  title: string;
  globs: string[];
  body: string;
}

/** Guidelines composed for an agent's guideline file, and the scoped rules taken out of them. */
export interface ComposedGuidelines {
  /** The Markdown that goes between the markers. */
  content: string;
  sections: GuidelineSection[];
  rules: ScopedRule[];
}

/** A skill ready to copy into an agent's skills folder. */
export interface Skill {
  name: string;
  description: string;
  origin: SourceOrigin;
  /** Files by path relative to the skill folder, `SKILL.md` included. */
  files: Map<string, string>;
}

function readSource(file: string): Result<string> {
  try {
    return ok(readFileSync(file, 'utf8'));
  } catch (error) {
    return fail(new AssistError('template_failed', `${file} could not be read.`, { cause: error }));
  }
}

/** Renders every guideline source; empty results are skipped, so an empty override removes a guideline. */
export function renderGuidelines(
  sources: readonly GuidelineSource[],
  helper: TemplateHelper,
  exclude: readonly string[] = [],
): Result<GuidelineSection[]> {
  const sections: GuidelineSection[] = [];
  for (const source of sources) {
    if (exclude.includes(source.key) || exclude.includes(source.path)) continue;
    const text = readSource(source.file);
    if (!text.ok) return text;
    const rendered = renderTemplate(text.value, source.file, helper);
    if (!rendered.ok) return rendered;
    const tidy = tidyMarkdown(rendered.value);
    if (tidy !== '') sections.push({ key: source.key, text: tidy });
  }
  return ok(sections);
}

function slugFor(globs: readonly string[]): string {
  const parts = (globs[0] ?? '').split('/').filter((part) => part !== '' && part !== '**');
  const plain = parts.filter((part) => !/[*?{}[\]!]/.test(part));
  // Prefer the last plain folder (`src/routes/**` → routes), else the file pattern (`*.test.ts` → test).
  const stem = plain.at(-1)?.replace(/\.[a-z0-9]+$/i, '') ?? parts.at(-1)?.replace(/\.[a-z0-9]+$/i, '') ?? '';
  return (
    stem
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'rule'
  );
}

function titleFor(body: string, fallback: string): string {
  return /^#{1,6}\s+(.+)$/m.exec(body)?.[1]?.trim() ?? fallback;
}

/**
 * Joins guideline sections into one Markdown body; when `promote` is on, `@scoped` blocks are taken out
 * and returned as rules (blocks with the same globs merge into one rule), otherwise they stay inline.
 */
export function composeGuidelines(
  sections: readonly GuidelineSection[],
  promote: boolean,
): ComposedGuidelines {
  const kept: GuidelineSection[] = [];
  const grouped = new Map<string, { globs: string[]; bodies: string[]; key: string }>();
  for (const section of sections) {
    const split = splitScoped(section.text);
    const text = tidyMarkdown(promote ? split.outside : split.inlined);
    if (text !== '') kept.push({ key: section.key, text });
    if (!promote) continue;
    for (const block of split.blocks.filter((candidate: ScopedBlock) => candidate.globs.length > 0)) {
      const id = [...block.globs].sort().join('\n');
      const group = grouped.get(id) ?? { globs: block.globs, bodies: [], key: section.key };
      group.bodies.push(block.body);
      grouped.set(id, group);
    }
  }
  const rules: ScopedRule[] = [];
  const taken = new Set<string>();
  for (const group of grouped.values()) {
    const base = slugFor(group.globs);
    let slug = base;
    for (let n = 2; taken.has(slug); n += 1) slug = `${base}-${n}`;
    taken.add(slug);
    const body = tidyMarkdown(group.bodies.join('\n\n'));
    rules.push({ slug, title: titleFor(body, `${group.key} rules`), globs: group.globs, body });
  }
  const content = kept.map((section) => `## ${section.key}\n\n${section.text}`).join('\n\n');
  return { content, sections: kept, rules };
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : entry.isFile() ? [join(dir, entry.name)] : [],
  );
}

const SKILL_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/**
 * Reads one skill folder: renders `SKILL.twig` (or takes `SKILL.md`), checks the front matter's required
 * `name` and `description`, keeps `@scoped` text inline (skills are never promoted), and copies the rest.
 */
export function loadSkill(source: SkillSource, helper: TemplateHelper): Result<Skill> {
  const files = walk(source.dir).map((file) => relative(source.dir, file).split('\\').join('/'));
  const entry = files.includes('SKILL.twig')
    ? 'SKILL.twig'
    : files.includes('SKILL.md')
      ? 'SKILL.md'
      : undefined;
  const where = join(source.dir, entry ?? 'SKILL.md');
  if (entry === undefined) return fail(new AssistError('skill_invalid', `${where} is missing.`));
  const text = readSource(where);
  if (!text.ok) return text;
  const rendered = renderTemplate(text.value, where, helper);
  if (!rendered.ok) return rendered;
  let data: Record<string, unknown>;
  try {
    data = parseFrontMatter(rendered.value).data;
  } catch (error) {
    return fail(
      new AssistError('skill_invalid', `${where} has front matter that is not valid YAML.`, { cause: error }),
    );
  }
  for (const field of ['name', 'description'] as const) {
    if (typeof data[field] !== 'string' || data[field].trim() === '') {
      return fail(new AssistError('skill_invalid', `${where} needs a "${field}" in its front matter.`));
    }
  }
  const name = String(data.name);
  if (!SKILL_NAME.test(name)) {
    return fail(
      new AssistError('skill_invalid', `${where} has name "${name}"; use lowercase words joined by "-".`),
    );
  }
  const out = new Map<string, string>([
    ['SKILL.md', `${tidyMarkdown(splitScoped(rendered.value).inlined)}\n`],
  ]);
  for (const rel of files.sort()) {
    if (rel === entry || rel === 'SKILL.md') continue;
    out.set(rel, readFileSync(join(source.dir, rel), 'utf8'));
  }
  return ok({ name, description: String(data.description), origin: source.origin, files: out });
}

/** Reads every skill source; a later skill with the same name replaces an earlier one. */
export function loadSkills(
  sources: readonly SkillSource[],
  helper: TemplateHelper,
  exclude: readonly string[] = [],
): Result<Skill[]> {
  const byName = new Map<string, Skill>();
  for (const source of sources) {
    const skill = loadSkill(source, helper);
    if (!skill.ok) return skill;
    if (source.origin !== 'user' && exclude.includes(skill.value.name)) continue;
    byName.set(skill.value.name, skill.value);
  }
  return ok([...byName.values()].sort((a, b) => a.name.localeCompare(b.name)));
}
