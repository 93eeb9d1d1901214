import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readProjectFacts } from '../src/compose/project-facts.js';
import { readProject } from '../src/project.js';
import { assist, cleanFixtures, copyFixture, read, tree, write } from './helpers.js';

afterAll(cleanFixtures);

/** Installs for Claude Code and returns the guidelines block, its sections, the skills and the report. */
async function install(root: string) {
  const result = await assist(root, 'install', '--agents', 'claude_code');
  expect(result).toMatchObject({ code: 0, err: '' });
  const claude = read(root, 'CLAUDE.md');
  const block = /<assist-guidelines>\n([\s\S]*?)<\/assist-guidelines>/.exec(claude)?.[1] ?? '';
  const sections = [...block.matchAll(/^## (.+)$/gm)].map((match) => match[1] ?? '');
  const skills = [
    ...new Set(
      Object.keys(tree(root))
        .filter((path) => path.startsWith('.claude/skills/'))
        .map((path) => path.split('/')[2]),
    ),
  ].sort();
  const tokens = Number(/^ {2}CLAUDE\.md +(\d+)$/m.exec(result.out)?.[1] ?? Number.NaN);
  return { block, sections, skills, tokens, out: result.out, files: tree(root) };
}

/** The text of one `## key` section. */
function section(block: string, key: string): string {
  const start = block.indexOf(`## ${key}\n`);
  if (start === -1) return '';
  const next = block.indexOf('\n## ', start + 1);
  return block.slice(start, next === -1 ? undefined : next);
}

/** Adds an installed package stub and names it in package.json, as `npm install -D` would. */
function addPackage(root: string, name: string, version: string): void {
  mkdirSync(join(root, 'node_modules', name), { recursive: true });
  write(root, `node_modules/${name}/package.json`, JSON.stringify({ name, version }));
  const manifest = JSON.parse(read(root, 'package.json'));
  manifest.devDependencies = { ...manifest.devDependencies, [name]: `^${version}` };
  write(root, 'package.json', JSON.stringify(manifest, null, 2));
}

/** Changes the installed version of a package already in node_modules. */
function setVersion(root: string, name: string, version: string): void {
  write(root, `node_modules/${name}/package.json`, JSON.stringify({ name, version }));
}

describe('guidelines for an Express 4 + Prisma 4 + Jest API in an Nx workspace on npm', () => {
  it('composes express 4, prisma 4, jest and Nx guidance and the prisma migration skill only', async () => {
    const root = copyFixture('guide-express-prisma');
    const { sections, skills } = await install(root);
    expect(sections).toEqual([
      'foundation',
      'assist/core',
      'node/core',
      'typescript/core',
      'express/v4/core',
      'prisma/v4/core',
      'jest/core',
      'nx/core',
    ]);
    // zod and pino are only transitive here: neither their guidelines nor the zod skill appear.
    expect(skills).toEqual(['prisma-migrations']);
  });

  it('says only what the project has: no declared Node, CommonJS, not strict, per-project type-check', async () => {
    const root = copyFixture('guide-express-prisma');
    const { block } = await install(root);
    expect(block).toContain('Node.js: no version declared (`engines`, `.nvmrc`); CommonJS; npm');
    expect(block).not.toContain(`Node.js ${process.versions.node}`);
    expect(block).toContain(
      '- Dependencies: @nx/jest 19.8.4, @prisma/client 4.16.2, express 4.21.2, jest 29.7.0, nx 19.8.4, ' +
        'prisma 4.16.2, ts-jest 29.1.2, tslib 2.6.3, typescript 5.5.4.',
    );
    expect(block).not.toMatch(/@types\/|@herald\/assist|body-parser/);
    expect(block).toContain('The build is CommonJS: use `__dirname`/`require`, not `import.meta`');
    expect(block).not.toContain('import.meta.dirname');
    expect(block).toContain('`strict` is off (`tsconfig.app.json`)');
    expect(block).not.toContain('`strict` is on');
    // The root tsconfig has `"files": []`: `tsc --noEmit` there would check nothing.
    expect(block).toContain(
      'Type-check with `npx tsc --noEmit -p tsconfig.app.json && npx tsc --noEmit -p tsconfig.spec.json`',
    );
    expect(block).not.toContain('`npx tsc --noEmit`');
    expect(block).toContain('run `npm run test` before you finish');
    expect(block).toContain('`npx prisma migrate dev --name <change>`');
    expect(block).toContain('`findUniqueOrThrow`/`findFirstOrThrow`, not `rejectOnNotFound`');
    expect(block).not.toMatch(/--env-file|dotenv/);
  });

  it('ships the prisma skill with front matter and references, worded for the installed major', async () => {
    const root = copyFixture('guide-express-prisma');
    const { files } = await install(root);
    const skill = files['.claude/skills/prisma-migrations/SKILL.md'] ?? '';
    expect(skill).toMatch(
      /^---\nname: prisma-migrations\ndescription: Use when changing the database schema of this Prisma 4 project/,
    );
    expect(skill).toContain('`migrate dev` regenerated the client');
    expect(files['.claude/skills/prisma-migrations/references/commands.md']).toContain(
      'prisma migrate deploy',
    );

    setVersion(root, 'prisma', '7.1.0');
    setVersion(root, '@prisma/client', '7.1.0');
    const seven = await install(root);
    expect(seven.sections).toContain('prisma/v7/core');
    expect(seven.sections).not.toContain('prisma/v4/core');
    expect(section(seven.block, 'prisma/v7/core')).toContain('no longer runs `prisma generate`');
    expect(seven.files['.claude/skills/prisma-migrations/SKILL.md']).toContain(
      'Run `npx prisma generate` yourself: in Prisma 7',
    );
  });

  it('adds the declared Node major, worded for CommonJS', async () => {
    const root = copyFixture('guide-express-prisma');
    write(root, '.nvmrc', 'v20.19.0\n');
    const { block, sections } = await install(root);
    expect(block).toContain('- Node.js 20.19.0; CommonJS; npm');
    expect(sections).toContain('node/v20/core');
    expect(section(block, 'node/v20/core')).toContain('From 20.19, `require()` loads ES modules');
    expect(block).not.toContain('import.meta.dirname');
  });

  it('drops the test habit and the runner guideline when the app has no test runner', async () => {
    const root = copyFixture('guide-express-prisma');
    const manifest = JSON.parse(read(root, 'package.json'));
    delete manifest.scripts.test;
    delete manifest.devDependencies.jest;
    delete manifest.devDependencies['@nx/jest'];
    write(root, 'package.json', JSON.stringify(manifest));
    rmSync(join(root, 'node_modules/jest'), { recursive: true });
    const { block, sections } = await install(root);
    expect(sections).not.toContain('jest/core');
    expect(block).not.toMatch(/test that fails|npm run test/);
  });

  it('stays within the guideline budget and reports the size of every section', async () => {
    const root = copyFixture('guide-express-prisma');
    const { tokens, out, sections } = await install(root);
    expect(tokens).toBeLessThan(1000);
    for (const key of sections)
      expect(out).toMatch(new RegExp(`^ {4}${key.replace('/', '\\/')} +\\d+$`, 'm'));
    expect(out).not.toContain('Over the 1000-token budget');
  });
});

describe('guidelines for a Next 15 + React 19 + Tailwind 4 + Drizzle app on pnpm', () => {
  it('composes next 15, react 19, tailwind 4 and drizzle guidance with their skills, nothing transitive', async () => {
    const root = copyFixture('guide-next-drizzle');
    const { sections, skills } = await install(root);
    expect(sections).toEqual([
      'foundation',
      'assist/core',
      'node/core',
      'typescript/core',
      'next/v15/core',
      'react/v19/core',
      'tailwindcss/v4/core',
      'drizzle/v0/core',
    ]);
    // vite and @playwright/test sit in node_modules without being dependencies of the app.
    expect(skills).toEqual(['drizzle-migrations', 'react-components', 'tailwind-v4-setup']);
  });

  it('keeps dotenv, says nothing of tests, and type-checks with tsc through pnpm', async () => {
    const root = copyFixture('guide-next-drizzle');
    const { block } = await install(root);
    expect(block).toContain(
      'Node.js: no version declared (`engines`, `.nvmrc`); ES modules; pnpm (`pnpm run <script>`',
    );
    expect(block).toContain(
      '`.env` files are loaded by dotenv for code outside Next.js (which loads them itself)',
    );
    expect(block).not.toContain('--env-file');
    expect(block).not.toMatch(/test that fails|vitest|jest/i);
    expect(block).toContain('`strict` is on');
    expect(block).toContain('Type-check with `pnpm exec tsc --noEmit`');
    expect(block).not.toContain('import.meta.dirname');
    expect(block).toContain('`pnpm exec drizzle-kit generate`');
    expect(section(block, 'tailwindcss/v4/core')).toContain('`@import "tailwindcss";` then `@theme');
    expect(section(block, 'react/v19/core')).toContain('`ref` is a plain prop (no `forwardRef`)');
  });

  it('ships skills with front matter and references for the installed majors', async () => {
    const root = copyFixture('guide-next-drizzle');
    const { files } = await install(root);
    for (const name of ['drizzle-migrations', 'react-components', 'tailwind-v4-setup']) {
      expect(files[`.claude/skills/${name}/SKILL.md`]).toMatch(
        new RegExp(`^---\\nname: ${name}\\ndescription: Use when `),
      );
      expect(Object.keys(files).some((path) => path.startsWith(`.claude/skills/${name}/references/`))).toBe(
        true,
      );
    }
    expect(files['.claude/skills/react-components/SKILL.md']).toContain(
      '   `ref` is an ordinary prop in React 19: no `forwardRef`.\n3. State:',
    );
    expect(files['.claude/skills/react-components/SKILL.md']).toContain(
      "unless its file starts with `'use client'`",
    );
    expect(files['.claude/skills/tailwind-v4-setup/references/upgrade-from-3.md']).toContain(
      '`outline-none` → `outline-hidden`',
    );
  });

  it('follows the installed majors down: Tailwind 3 and React 18 get their own text and no v4 skill', async () => {
    const root = copyFixture('guide-next-drizzle');
    setVersion(root, 'tailwindcss', '3.4.17');
    setVersion(root, 'react', '18.3.1');
    const { sections, skills, block, files } = await install(root);
    expect(sections).toContain('tailwindcss/v3/core');
    expect(sections).toContain('react/v18/core');
    expect(sections).not.toContain('tailwindcss/v4/core');
    expect(section(block, 'tailwindcss/v3/core')).toContain('`content` globs');
    expect(skills).toEqual(['drizzle-migrations', 'react-components']);
    expect(files['.claude/skills/react-components/SKILL.md']).toContain('Forward refs with `forwardRef`');
  });

  it('adds Playwright guidance and its skill once @playwright/test is a dependency', async () => {
    const root = copyFixture('guide-next-drizzle');
    addPackage(root, '@playwright/test', '1.52.0');
    const { sections, skills, block, files } = await install(root);
    expect(sections.at(-1)).toBe('playwright/core');
    expect(block).toContain('`pnpm exec playwright test`');
    expect(block).toContain('use the `playwright-e2e-tests` skill');
    expect(skills).toContain('playwright-e2e-tests');
    expect(files['.claude/skills/playwright-e2e-tests/references/patterns.md']).toContain('storageState');
  });

  it('stays within the guideline budget', async () => {
    const root = copyFixture('guide-next-drizzle');
    const { tokens } = await install(root);
    expect(tokens).toBeLessThan(1000);
  });
});

describe('guidelines for an express 5 + pino + pg + vitest service', () => {
  it('composes express 5, pg 8, zod 4, pino 10, vitest and Node 22 guidance', async () => {
    const root = copyFixture('guide-express-pino');
    const { sections, skills, block } = await install(root);
    expect(sections).toEqual([
      'foundation',
      'assist/core',
      'node/core',
      'node/v22/core',
      'typescript/core',
      'express/v5/core',
      'pg/v8/core',
      'zod/v4/core',
      'pino/core',
      'vitest/core',
    ]);
    expect(skills).toEqual(['zod-schemas']);
    expect(section(block, 'pino/core')).toContain('Pino 10 needs Node 20 or newer.');
    expect(section(block, 'pg/v8/core')).toContain("From ESM: `import pg from 'pg'`");
  });

  it('shows the engines range, ES modules, --env-file, the typecheck script and TypeScript 6', async () => {
    const root = copyFixture('guide-express-pino');
    const { block } = await install(root);
    expect(block).toContain('- Node.js >=22.12; ES modules; npm');
    expect(block).toContain(
      '- Dependencies: express 5.1.0, pg 8.16.3, pino 10.1.0, typescript 6.0.3, vitest 4.0.8, zod 4.1.12.',
    );
    expect(block).toContain(
      '`.env` files are loaded with `node --env-file` in the scripts; do not add dotenv.',
    );
    expect(block).toContain('Type-check with `npm run typecheck`');
    expect(block).toContain('`module: nodenext`: relative imports name the emitted file');
    expect(block).toContain('TypeScript 6 defaults:');
    expect(block).toContain('run `npm run test` before you finish');
    expect(block).toContain('workspace files are gone in Vitest 4');
  });

  it('ships the zod skill for the installed major', async () => {
    const root = copyFixture('guide-express-pino');
    const four = await install(root);
    expect(four.files['.claude/skills/zod-schemas/SKILL.md']).toContain('# Schema validation with zod 4');
    expect(four.files['.claude/skills/zod-schemas/references/changes-from-3.md']).toContain('z.treeifyError');
    setVersion(root, 'zod', '3.23.8');
    const three = await install(root);
    expect(three.sections).toContain('zod/v3/core');
    expect(three.sections).not.toContain('zod/v4/core');
    expect(three.files['.claude/skills/zod-schemas/SKILL.md']).toContain('# Schema validation with zod 3');
    expect(Object.keys(three.files)).not.toContain('.claude/skills/zod-schemas/references/changes-from-3.md');
  });

  it('recognises `tsx --test` and `node --test` as the Node test runner', async () => {
    const root = copyFixture('guide-express-pino');
    const manifest = JSON.parse(read(root, 'package.json'));
    delete manifest.devDependencies.vitest;
    manifest.scripts.test = 'tsx --test src/**/*.test.ts';
    write(root, 'package.json', JSON.stringify(manifest));
    rmSync(join(root, 'node_modules/vitest'), { recursive: true });
    const tsx = await install(root);
    expect(tsx.sections.at(-1)).toBe('node-test/core');
    expect(section(tsx.block, 'node-test/core')).toContain('run them with `npm run test`');
    manifest.scripts = { ...manifest.scripts, test: 'echo "use test:unit"', 'test:unit': 'node --test' };
    write(root, 'package.json', JSON.stringify(manifest));
    const node = await install(root);
    expect(section(node.block, 'node-test/core')).toContain('run them with `npm run test:unit`');
  });

  it('adds kysely, vite, vue and turbo guidance only when each is a dependency', async () => {
    const root = copyFixture('guide-express-pino');
    const before = await install(root);
    expect(before.sections.filter((key) => /kysely|vite\/|vue|turbo/.test(key))).toEqual([]);
    addPackage(root, 'kysely', '0.28.8');
    addPackage(root, 'vite', '7.1.12');
    addPackage(root, 'vue', '3.5.22');
    addPackage(root, 'turbo', '2.5.8');
    const after = await install(root);
    expect(after.sections).toEqual(
      expect.arrayContaining(['kysely/v0/core', 'vite/v7/core', 'vue/v3/core', 'turbo/v2/core']),
    );
    expect(section(after.block, 'vite/v7/core')).toContain('Vite 7 needs Node 20.19+ or 22.12+');
    expect(section(after.block, 'vue/v3/core')).toContain('Vue 3.5: destructured props stay reactive');
    expect(section(after.block, 'turbo/v2/core')).toContain('under `tasks` (not `pipeline`)');
    expect(after.skills).toEqual(['kysely-migrations', 'zod-schemas']);
  });

  it('stays within the guideline budget', async () => {
    const root = copyFixture('guide-express-pino');
    const { tokens } = await install(root);
    expect(tokens).toBeLessThan(1000);
  });
});

describe('guidelines about the assist MCP server', () => {
  it('name a tool only while the server offers it', async () => {
    const root = copyFixture('guide-express-pino');
    expect((await install(root)).block).toContain("`assist` MCP server's `application-info` tool");
    write(
      root,
      'assist.config.json',
      '{ "Assist": { "mcp": { "tools": { "exclude": ["application-info"] } } } }',
    );
    expect((await install(root)).block).not.toContain('application-info');
    write(root, 'assist.config.json', '{ "Assist": { "mcp": { "enabled": false } } }');
    expect((await install(root)).block).not.toMatch(/MCP|application-info/);
  });
});

describe('readProjectFacts', () => {
  it('type-checks a solution tsconfig with `tsc -b` when every referenced project is composite', () => {
    const root = copyFixture('guide-express-prisma');
    for (const file of ['tsconfig.app.json', 'tsconfig.spec.json']) {
      const config = JSON.parse(read(root, file));
      config.compilerOptions.composite = true;
      write(root, file, JSON.stringify(config));
    }
    const project = readProject(root);
    if (!project.ok) throw project.error;
    expect(readProjectFacts(project.value).typecheck).toBe('npx tsc -b');
  });

  it('follows tsconfig extends and takes TypeScript 6 defaults when strict and module are unset', () => {
    const root = copyFixture('guide-express-pino');
    write(root, 'tsconfig.base.json', JSON.stringify({ compilerOptions: { verbatimModuleSyntax: true } }));
    write(root, 'tsconfig.json', '{ "extends": "./tsconfig.base.json" }');
    const project = readProject(root);
    if (!project.ok) throw project.error;
    const facts = readProjectFacts(project.value);
    expect(facts.tsconfig).toMatchObject({ strict: true, module: 'esnext', verbatimModuleSyntax: true });
    expect(facts.module).toBe('esm');
  });
});
