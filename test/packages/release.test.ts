// A release dry run: `changeset version` on a copy of the repository (never on the working tree) must bump every
// package each pending changeset names, write its summary into that package's CHANGELOG, and leave the private
// apps alone. Fast enough (a few seconds) to run in `pnpm test`.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PackageJson, readJson, repoRoot, runOk } from './workspace.js';

type Bump = 'major' | 'minor' | 'patch';
const RANK: Record<Bump, number> = { patch: 0, minor: 1, major: 2 };

interface Changeset {
  file: string;
  bumps: Map<string, Bump>;
  summary: string;
}

/** Reads a changeset file: front matter of `"name": bump` lines, then the summary. */
function parseChangeset(file: string, text: string): Changeset {
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
  if (!match) throw new Error(`${file} has no front matter`);
  const bumps = new Map<string, Bump>();
  for (const line of (match[1] ?? '').split('\n').filter((l) => l.trim() !== '')) {
    const entry = /^\s*["']?([^"':]+)["']?\s*:\s*(major|minor|patch)\s*$/.exec(line);
    if (!entry?.[1] || !entry[2]) throw new Error(`${file}: cannot read "${line}"`);
    bumps.set(entry[1], entry[2] as Bump);
  }
  return { file, bumps, summary: (match[2] ?? '').trim() };
}

function increment(version: string, bump: Bump): string {
  const [major = 0, minor = 0, patch = 0] = version.split('.').map(Number);
  if (bump === 'major') return `${major + 1}.0.0`;
  if (bump === 'minor') return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

/** Every workspace package (packages/* and apps/*) of a tree, by name. */
function workspaceManifests(root: string): Map<string, { dir: string; manifest: PackageJson }> {
  const found = new Map<string, { dir: string; manifest: PackageJson }>();
  for (const group of ['packages', 'apps']) {
    if (!existsSync(join(root, group))) continue;
    for (const entry of readdirSync(join(root, group))) {
      const dir = join(root, group, entry);
      if (!existsSync(join(dir, 'package.json'))) continue;
      const manifest = readJson<PackageJson>(join(dir, 'package.json'));
      found.set(manifest.name, { dir, manifest });
    }
  }
  return found;
}

const copy = mkdtempSync(join(tmpdir(), 'herald-release-'));
let changesets: Changeset[] = [];
let before = new Map<string, { dir: string; manifest: PackageJson }>();
let after = new Map<string, { dir: string; manifest: PackageJson }>();

beforeAll(async () => {
  // The tracked files plus any not yet committed (a changeset being written), without ignored ones.
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: repoRoot })
    .toString()
    .split('\0')
    .filter((file) => file !== '' && existsSync(join(repoRoot, file)));
  for (const file of files) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(repoRoot, file), join(copy, file));
  }
  changesets = readdirSync(join(copy, '.changeset'))
    .filter((file) => file.endsWith('.md') && file !== 'README.md')
    .map((file) => parseChangeset(file, readFileSync(join(copy, '.changeset', file), 'utf8')));
  before = workspaceManifests(copy);
  const cli = join(repoRoot, 'node_modules', '@changesets', 'cli', 'bin.js');
  await runOk(process.execPath, [cli, 'version'], { cwd: copy, timeoutMs: 120_000 });
  after = workspaceManifests(copy);
}, 180_000);

afterAll(() => rmSync(copy, { recursive: true, force: true }));

describe('changeset version (release dry run on a copy of the repository)', () => {
  // Right after a release there are none; then the run must change no version (checked by the tests below).
  it('has changesets that name only workspace packages', () => {
    for (const changeset of changesets) {
      for (const name of changeset.bumps.keys())
        expect(before.has(name), `${changeset.file} names ${name}`).toBe(true);
    }
  });

  it('consumes every changeset', () => {
    const left = readdirSync(join(copy, '.changeset')).filter(
      (file) => file.endsWith('.md') && file !== 'README.md',
    );
    expect(left).toEqual([]);
  });

  it('bumps each named package by the largest bump its changesets ask for', () => {
    const largest = new Map<string, Bump>();
    for (const changeset of changesets) {
      for (const [name, bump] of changeset.bumps) {
        const current = largest.get(name);
        if (!current || RANK[bump] > RANK[current]) largest.set(name, bump);
      }
    }
    const expected = Object.fromEntries(
      [...largest].map(([name, bump]) => [name, increment(before.get(name)?.manifest.version ?? '', bump)]),
    );
    const actual = Object.fromEntries(
      [...largest.keys()].map((name) => [name, after.get(name)?.manifest.version]),
    );
    expect(actual).toEqual(expected);
  });

  it("writes every changeset's summary into the CHANGELOG of each package it names, under the new version", () => {
    for (const changeset of changesets) {
      const firstLine = changeset.summary.split('\n')[0] ?? '';
      for (const name of changeset.bumps.keys()) {
        const pkg = after.get(name);
        const changelogPath = join(pkg?.dir ?? '', 'CHANGELOG.md');
        expect(existsSync(changelogPath), `${name} has a CHANGELOG.md`).toBe(true);
        const changelog = readFileSync(changelogPath, 'utf8');
        expect(changelog).toContain(`## ${pkg?.manifest.version}`);
        expect(changelog, `${name}'s CHANGELOG has ${changeset.file}`).toContain(firstLine);
      }
    }
  });

  it('bumps a package no changeset names at most by a patch, for its updated dependencies', () => {
    const named = new Set(changesets.flatMap((changeset) => [...changeset.bumps.keys()]));
    for (const [name, pkg] of after) {
      const old = before.get(name)?.manifest;
      if (named.has(name) || !old || old.private) continue;
      expect([old.version, increment(old.version, 'patch')], name).toContain(pkg.manifest.version);
    }
  });

  it('leaves the private apps unversioned', () => {
    const apps = [...before].filter(([, pkg]) => pkg.manifest.private);
    expect(apps.length).toBeGreaterThan(0);
    for (const [name, pkg] of apps) {
      expect(after.get(name)?.manifest.version, name).toBe(pkg.manifest.version);
      expect(existsSync(join(pkg.dir, 'CHANGELOG.md')), `${name} has no CHANGELOG.md`).toBe(false);
    }
  });
});
