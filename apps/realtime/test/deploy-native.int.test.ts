import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { UwsDiagnosis } from '@herald/realtime-server';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_IMAGE } from '../src/transport-command.js';
import { nodeOf, runOn } from './node-lines.js';

// deploy/ and native speed, checked without a container runtime: the Dockerfile's default base is one the README
// lists as native-capable, every glibc the README states is compared with what the bundled build's files need (read
// by `realtime transport --json` on Node 22 and 24 here), and every command and flag the deploy files give `realtime`
// exists and runs.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DEPLOY = join(ROOT, 'deploy');
const dockerfile = readFileSync(join(DEPLOY, 'Dockerfile'), 'utf8');
const readme = readFileSync(join(DEPLOY, 'README.md'), 'utf8');
const BUNDLED = '@btc-vision/uwebsockets.js';

interface Base {
  readonly image: string;
  readonly isDefault: boolean;
  readonly libc: { readonly family: 'glibc' | 'musl'; readonly version?: string };
  readonly node: string;
  readonly transport: 'uws' | 'portable';
  readonly expect: string;
}

/** The rows of the README table that follows a heading line starting with `lead`. */
function baseTable(lead: string): Base[] {
  const start = readme.indexOf(lead);
  expect(start, lead).toBeGreaterThan(-1);
  const lines = readme.slice(start).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const after = lines.slice(first).findIndex((line) => !line.startsWith('|'));
  // The header row and the |---| row go; the rest are bases.
  const rows = lines.slice(first, after === -1 ? undefined : first + after).slice(2);
  return rows.map((row) => {
    const [image = '', system = '', node = '', transport = '', expected = ''] = row
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    const glibc = /glibc (\d+\.\d+)/.exec(system)?.[1];
    return {
      image: /`([^`]+)`/.exec(image)?.[1] ?? image,
      isDefault: image.includes('(default)'),
      libc: glibc
        ? { family: 'glibc', version: glibc }
        : { family: system.includes('musl') ? 'musl' : 'glibc' },
      node,
      transport: transport.startsWith('uws') ? 'uws' : 'portable',
      expect: /`(\w+)`/.exec(expected)?.[1] ?? expected,
    };
  });
}

function dockerArg(name: string): string {
  const match = new RegExp(`^ARG ${name}=(\\S+)$`, 'm').exec(dockerfile);
  if (!match?.[1]) throw new Error(`the Dockerfile declares no default for ${name}`);
  return match[1];
}

const versionAtLeast = (a: string, b: string) => {
  const [am = 0, an = 0] = a.split('.').map(Number);
  const [bm = 0, bn = 0] = b.split('.').map(Number);
  return am !== bm ? am > bm : an >= bn;
};

describe('deploy/Dockerfile and native speed', () => {
  const native = baseTable('Native-capable bases');
  const portable = baseTable('Portable variants');
  const diagnoses = new Map<string, UwsDiagnosis>();

  beforeAll(async () => {
    for (const major of ['22', '24']) {
      const result = await runOn(nodeOf(major), ['transport', '--json']);
      diagnoses.set(major, JSON.parse(result.stdout) as UwsDiagnosis);
    }
  }, 120_000);

  it('defaults to a base the README lists as native-capable, and expects uws there', () => {
    expect(native.length).toBeGreaterThanOrEqual(2);
    expect(native.every((base) => base.transport === 'uws' && base.expect === 'uws')).toBe(true);
    const image = dockerArg('NODE_IMAGE');
    expect(native.filter((base) => base.isDefault).map((base) => base.image)).toEqual([image]);
    expect(dockerArg('EXPECT_TRANSPORT')).toBe('uws');
    // `realtime transport` names the same default image in its advice.
    expect(DEFAULT_IMAGE).toBe(image);
    // Both Node lines the issue names have a native base, and every row's Node is the image's own.
    expect(new Set(native.map((base) => base.node))).toEqual(new Set(['22', '24']));
    for (const base of [...native, ...portable])
      expect(base.image).toMatch(new RegExp(`^node:${base.node}-`));
    // The bookworm and Alpine variants are documented, each saying it runs portable on purpose.
    expect(portable.map((base) => base.image)).toEqual(
      expect.arrayContaining(['node:22-bookworm-slim', 'node:22-alpine']),
    );
    expect(portable.every((base) => base.transport === 'portable' && base.expect === 'portable')).toBe(true);
  });

  it('states for each base a glibc that does, or does not, meet what the bundled build needs', () => {
    for (const base of [...native, ...portable]) {
      const diagnosis = diagnoses.get(base.node);
      const bundled = diagnosis?.candidates.find((candidate) => candidate.source?.startsWith(BUNDLED));
      if (!diagnosis || !bundled) throw new Error(`no ${BUNDLED} build checked on Node ${base.node}`);
      if (base.libc.family === 'musl') {
        expect(base.transport, base.image).toBe('portable');
        continue;
      }
      const stated = base.libc.version;
      if (!stated) throw new Error(`${base.image}: the README states no glibc version`);
      if (bundled.verdict === 'libc_too_old') {
        // This machine's glibc is older than the build needs: the file says exactly which version it needs.
        const newest = (bundled.missing ?? [])
          .map((need) => need.version)
          .reduce((a, b) => (versionAtLeast(a, b) ? a : b));
        expect(versionAtLeast(stated, newest), `${base.image}: glibc ${stated} vs ${newest}`).toBe(
          base.transport === 'uws',
        );
      } else {
        // It loads here: a base with at least this machine's glibc loads it too.
        expect(bundled.verdict).toBe('loads');
        if (base.transport === 'uws')
          expect(versionAtLeast(stated, diagnosis.libc.version ?? '0')).toBe(true);
      }
    }
  });

  it('runs the build-time transport check as the Dockerfile writes it, on Node 22 and 24', async () => {
    const line = /^RUN node dist\/bin\.js (transport .*)$/m.exec(dockerfile)?.[1];
    if (!line) throw new Error('the runtime stage runs no `node dist/bin.js transport`');
    for (const major of ['22', '24']) {
      const runsNative = diagnoses.get(major)?.loaded !== undefined;
      for (const expected of ['uws', 'portable']) {
        const args = line.replace('"$EXPECT_TRANSPORT"', expected).split(/\s+/);
        const result = await runOn(nodeOf(major), args);
        const matches = (expected === 'uws') === runsNative;
        expect(result.code, `Node ${major}, --expect ${expected}`).toBe(matches ? 0 : 1);
      }
    }
  });
});

describe('the realtime commands the deploy files name', () => {
  it('are commands and flags of `realtime help`', async () => {
    const help = (await runOn(process.execPath, ['help'])).stdout;
    const files = [
      join(DEPLOY, 'Dockerfile'),
      join(DEPLOY, 'README.md'),
      ...readdirSync(join(DEPLOY, 'kubernetes')).map((file) => join(DEPLOY, 'kubernetes', file)),
    ];
    const named: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/dist\/bin\.js ([a-z_]+)((?: --[a-z-]+)*)/g)) {
        const [, command = '', flags = ''] = match;
        named.push(command);
        expect(help, `${file}: realtime ${command}`).toMatch(new RegExp(`^ {2}${command}\\s`, 'm'));
        for (const flag of flags.trim().split(/\s+/).filter(Boolean))
          expect(help, `${file}: realtime ${command} ${flag}`).toContain(`${flag} `);
      }
    }
    expect(new Set(named)).toEqual(new Set(['server', 'transport']));
  });

  it('pass only build arguments the Dockerfile declares', () => {
    const declared = [...dockerfile.matchAll(/^ARG (\w+)/gm)].map((match) => match[1]);
    const passed = [...`${dockerfile}\n${readme}`.matchAll(/--build-arg (\w+)=/g)].map((match) => match[1]);
    expect(new Set(passed)).toEqual(new Set(['NODE_IMAGE', 'EXPECT_TRANSPORT']));
    for (const name of passed) expect(declared, name).toContain(name);
  });
});
