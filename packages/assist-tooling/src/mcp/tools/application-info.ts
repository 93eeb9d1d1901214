import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { readPackageJson, readProject } from '../../project.js';
import { findDatabaseConnections } from '../database/connections.js';
import { readLockfileVersions } from '../lockfile.js';
import { errorResult, jsonResultWithin } from '../tool-result.js';
import { defineTool, type ToolContext } from './tool.js';

const FRAMEWORKS = [
  'hono',
  'express',
  'fastify',
  'koa',
  '@nestjs/core',
  'next',
  'nuxt',
  '@sveltejs/kit',
  'astro',
  'react-router',
  '@remix-run/node',
  '@tanstack/react-start',
  '@adonisjs/core',
  'vite',
  'react',
  'vue',
  'svelte',
  'solid-js',
];
const DATABASE_PACKAGES = [
  'prisma',
  '@prisma/client',
  'drizzle-orm',
  'knex',
  'kysely',
  'typeorm',
  'sequelize',
  '@mikro-orm/core',
  'mongoose',
  'pg',
  'postgres',
  'mysql2',
  'better-sqlite3',
  'sql.js',
  '@electric-sql/pglite',
  'redis',
  'ioredis',
];

/** Facts about the project that the `application-info` tool returns. */
export interface ApplicationInfo {
  name: string | null;
  node: { target: string; running: string };
  typescript: string | null;
  module: 'esm' | 'commonjs';
  packageManager: string;
  workspaces: string[];
  frameworks: Record<string, string>;
  databases: { engines: string[]; packages: Record<string, string> };
  /**
   * Direct dependencies (or every installed package when asked); `lockfile: true` marks a direct dependency
   * missing from node_modules whose version the lockfile records.
   */
  packages: { name: string; version: string; direct: boolean; lockfile?: true }[];
}

function workspacesOf(root: string): string[] {
  const manifest = readPackageJson(root) as { workspaces?: string[] | { packages?: string[] } } | undefined;
  const list = Array.isArray(manifest?.workspaces)
    ? manifest.workspaces
    : (manifest?.workspaces?.packages ?? []);
  const pnpm = join(root, 'pnpm-workspace.yaml');
  if (existsSync(pnpm)) {
    const parsed = parseYaml(readFileSync(pnpm, 'utf8')) as { packages?: string[] } | null;
    list.push(...(parsed?.packages ?? []));
  }
  return list;
}

/** Direct dependencies that are not in node_modules (not installed yet, or pruned) with their lockfile version. */
function lockedOnly(root: string, installed: Set<string>): ApplicationInfo['packages'] {
  const manifest = readPackageJson(root);
  const direct = new Set(
    Object.keys({
      ...manifest?.dependencies,
      ...manifest?.devDependencies,
      ...manifest?.optionalDependencies,
    }),
  );
  return [...readLockfileVersions(root)]
    .filter(([name]) => direct.has(name) && !installed.has(name))
    .map(([name, version]) => ({ name, version, direct: true, lockfile: true as const }));
}

/** Reads what the `application-info` tool reports, or an error message when the project is unreadable. */
export function readApplicationInfo(
  context: ToolContext,
  dependencies: 'direct' | 'all' = 'direct',
): ApplicationInfo | { error: string } {
  const project = readProject(context.root);
  if (!project.ok) return { error: project.error.message };
  const { name, nodeVersion, packageManager, packages } = project.value;
  const versionsOf = (names: string[]) =>
    Object.fromEntries(
      names.flatMap((item) => (packages.has(item) ? [[item, packages.get(item)?.version ?? '']] : [])),
    );
  const connections = findDatabaseConnections(context.root, context.config, context.env());
  return {
    name: name ?? null,
    node: { target: nodeVersion, running: process.versions.node },
    typescript: packages.get('typescript')?.version ?? null,
    module:
      (readPackageJson(context.root) as { type?: string } | undefined)?.type === 'module'
        ? 'esm'
        : 'commonjs',
    packageManager,
    workspaces: workspacesOf(context.root),
    frameworks: versionsOf(FRAMEWORKS),
    databases: {
      engines: [...new Set(connections.map((item) => item.engine))],
      packages: versionsOf(DATABASE_PACKAGES),
    },
    packages: [
      ...[...packages.values()]
        .filter((pkg) => pkg.direct || dependencies === 'all')
        .map((pkg) => ({ name: pkg.name, version: pkg.version, direct: pkg.direct })),
      ...lockedOnly(context.root, new Set(packages.keys())),
    ],
  };
}

/** Past this many characters the package list is cut (the answer stays valid JSON). */
const MAX_INFO_CHARS = 20_000;

export const applicationInfo = defineTool({
  name: 'application-info',
  title: 'Application info',
  description:
    'Node and TypeScript versions, module type, package manager, workspaces, frameworks, database engines and the ' +
    'direct dependencies with their exact installed versions. Call it first so your code matches the versions in use.',
  input: {
    dependencies: z
      .enum(['direct', 'all'])
      .default('direct')
      .describe('"direct" (default): packages named in package.json; "all": every installed package.'),
  },
  readOnly: true,
  run: ({ dependencies }, context) => {
    const info = readApplicationInfo(context, dependencies);
    return 'error' in info ? errorResult(info.error) : jsonResultWithin(info, 'packages', MAX_INFO_CHARS);
  },
});
