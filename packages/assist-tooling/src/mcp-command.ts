import { join, relative } from 'node:path';
import type { McpCommand } from './agents.js';
import type { AssistConfig } from './config.js';
import { SELF } from './internal/bundled.js';
import { findPackageDir, type Project, readPackageJson } from './project.js';

const posix = (path: string): string => path.split('\\').join('/');

/**
 * Works out how agents start `assist mcp`: the configured command if any, else `node` on the installed
 * bin (found by walking up `node_modules`, so a package hoisted to a monorepo root works), else the
 * package manager's exec.
 */
export function resolveMcpCommand(project: Project, config: AssistConfig): McpCommand {
  const { command, args } = config.mcp;
  if (command !== undefined) {
    const custom = { command, args: args ?? [] };
    return { ...custom, absolute: custom };
  }
  const dir = findPackageDir(SELF, project.root);
  const bin = dir
    ? (readPackageJson(dir) as { bin?: string | Record<string, string> } | undefined)?.bin
    : undefined;
  const entry = typeof bin === 'string' ? bin : bin?.assist;
  if (dir !== undefined && entry !== undefined) {
    const file = join(dir, entry);
    return {
      command: 'node',
      args: [posix(relative(project.root, file)), 'mcp'],
      absolute: { command: 'node', args: [posix(file), 'mcp', '--cwd', posix(project.root)] },
    };
  }
  const exec: Record<Project['packageManager'], [string, string[]]> = {
    npm: ['npx', ['--no-install', 'assist', 'mcp']],
    pnpm: ['pnpm', ['exec', 'assist', 'mcp']],
    yarn: ['yarn', ['assist', 'mcp']],
    bun: ['bunx', ['assist', 'mcp']],
  };
  const [cmd, cmdArgs] = exec[project.packageManager];
  return {
    command: cmd,
    args: cmdArgs,
    absolute: { command: cmd, args: [...cmdArgs, '--cwd', posix(project.root)] },
  };
}
