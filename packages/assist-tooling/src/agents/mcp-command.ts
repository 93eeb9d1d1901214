import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { SELF } from '../compose/bundled.js';
import type { AssistConfig } from '../config.js';
import { findPackageDir, type Project, readPackageJson } from '../project.js';
import type { McpCommand } from './registry.js';

const posix = (path: string): string => path.split('\\').join('/');

type Bin = string | Record<string, string> | undefined;
const binEntry = (bin: Bin): string | undefined => (typeof bin === 'string' ? bin : bin?.assist);

/** This package's own bin path (`./dist/cli.js`), read from the package.json it ships with. */
const OWN_BIN =
  binEntry(
    (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { bin?: Bin }).bin,
  ) ?? './dist/cli.js';

/**
 * Works out how agents start `assist mcp`: the configured command if any, else `node` on the installed
 * bin (found by walking up `node_modules`, so a package hoisted to a monorepo root works). Before the package
 * is installed in the project (`npx @herald/assist install`), it is the bin's path once installed in the
 * project's own `node_modules`: never the bare name `assist`, which `npx` would resolve to an unrelated
 * public package.
 */
export function resolveMcpCommand(project: Project, config: AssistConfig): McpCommand {
  const { command, args } = config.mcp;
  if (command !== undefined) {
    const custom = { command, args: args ?? [] };
    return { ...custom, absolute: custom };
  }
  const installed = findPackageDir(SELF, project.root);
  const dir = installed ?? join(project.root, 'node_modules', SELF);
  const entry =
    (installed ? binEntry((readPackageJson(installed) as { bin?: Bin } | undefined)?.bin) : undefined) ??
    OWN_BIN;
  const file = join(dir, entry);
  return {
    command: 'node',
    args: [posix(relative(project.root, file)), 'mcp'],
    absolute: { command: 'node', args: [posix(file), 'mcp', '--cwd', posix(project.root)] },
  };
}

/** Whether `@herald/assist` is installed where the MCP command looks for it. */
export function isAssistInstalled(project: Project): boolean {
  return findPackageDir(SELF, project.root) !== undefined;
}
