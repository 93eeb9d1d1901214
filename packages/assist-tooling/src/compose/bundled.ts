import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Project } from '../project.js';

/** A bundled guideline folder and what turns it on. */
export interface BundledEntry {
  /** Folder name under resources/guidelines and resources/skills. */
  key: string;
  /**
   * The npm package (or alternatives, first found wins) whose installed major picks the `{major}` folder;
   * absent for entries decided only by `when`.
   */
  package?: string | readonly string[];
  /** Only a direct dependency counts (stops transitive installs from injecting guidance). */
  direct?: boolean;
  /** Dropped when any of these packages is present (the preferred alternative wins). */
  unless?: string[];
  /** Turns the entry on without the package (its core files only, no major folder). */
  when?: (project: Project) => boolean;
}

const NODE_TEST = /\b(node|tsx)\b[^|&;]*\s--test\b/;

const usesNodeTest = (project: Project): boolean =>
  Object.values(project.scripts).some((script) => NODE_TEST.test(script));

const hasFile =
  (file: string) =>
  (project: Project): boolean =>
    existsSync(join(project.root, file));

/** Bundled guideline entries in the order their sections appear. */
export const BUNDLED: readonly BundledEntry[] = [
  { key: 'typescript', package: 'typescript' },
  { key: 'hono', package: 'hono' },
  { key: 'express', package: 'express' },
  { key: 'fastify', package: 'fastify' },
  { key: 'next', package: 'next' },
  { key: 'nest', package: '@nestjs/core' },
  { key: 'react', package: 'react' },
  { key: 'vue', package: 'vue' },
  { key: 'tailwindcss', package: 'tailwindcss' },
  { key: 'vite', package: 'vite' },
  { key: 'prisma', package: ['@prisma/client', 'prisma'] },
  { key: 'drizzle', package: 'drizzle-orm' },
  { key: 'kysely', package: 'kysely' },
  { key: 'pg', package: 'pg' },
  { key: 'zod', package: 'zod' },
  { key: 'pino', package: 'pino' },
  { key: 'vitest', package: 'vitest' },
  { key: 'jest', package: 'jest', unless: ['vitest'] },
  { key: 'node-test', when: usesNodeTest, unless: ['vitest', 'jest'] },
  { key: 'playwright', package: '@playwright/test' },
  { key: 'nx', package: 'nx', when: hasFile('nx.json') },
  { key: 'turbo', package: 'turbo', when: hasFile('turbo.json') },
  { key: 'mcp', package: '@modelcontextprotocol/sdk', direct: true },
];

/** The scope whose packages compose without being offered first. */
export const FIRST_PARTY_SCOPE = '@herald/';

/** This package's own name, never scanned as a source of resources. */
export const SELF = '@herald/assist';
