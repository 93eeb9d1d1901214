import type { Project } from '../project.js';

/** A bundled guideline folder and the package whose presence turns it on. */
export interface BundledEntry {
  /** Folder name under resources/guidelines and resources/skills. */
  key: string;
  /** The npm package that must be installed; absent for entries decided by `when`. */
  package?: string;
  /** Only a direct dependency counts (stops transitive installs from injecting guidance). */
  direct?: boolean;
  /** Folders named `{major}.{minor}` are applied cumulatively up to the installed version. */
  minors?: boolean;
  /** Dropped when any of these packages is present (the preferred alternative wins). */
  unless?: string[];
  when?: (project: Project) => boolean;
}

const usesNodeTest = (project: Project): boolean =>
  Object.values(project.scripts).some((script) => /\bnode\b[^|&;]*\s--test\b/.test(script));

/** Bundled guideline entries in the order their sections appear. */
export const BUNDLED: readonly BundledEntry[] = [
  { key: 'typescript', package: 'typescript', minors: true },
  { key: 'hono', package: 'hono' },
  { key: 'express', package: 'express' },
  { key: 'fastify', package: 'fastify' },
  { key: 'next', package: 'next' },
  { key: 'nest', package: '@nestjs/core' },
  { key: 'vitest', package: 'vitest' },
  { key: 'jest', package: 'jest', unless: ['vitest'] },
  { key: 'node-test', when: usesNodeTest, unless: ['vitest', 'jest'] },
  { key: 'mcp', package: '@modelcontextprotocol/sdk', direct: true },
];

/** The scope whose packages compose without being offered first. */
export const FIRST_PARTY_SCOPE = '@herald/';

/** This package's own name, never scanned as a source of resources. */
export const SELF = '@herald/assist';
