import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN } from './run-bin.js';

// Node binaries of other release lines, for tests that run the built bin on each line.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A Node binary of a major line: this process's own, one `.ci/node-line` cached, or `.ci/node-line` fetching it. */
export function nodeOf(major: string): string {
  if (process.versions.node.split('.')[0] === major) return process.execPath;
  const cache =
    process.env.HERALD_NODE_CACHE ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'herald/node');
  const cached = existsSync(cache)
    ? readdirSync(cache)
        .filter((name) => name.startsWith(`${major}.`) && existsSync(join(cache, name, 'bin/node')))
        .sort((a, b) => a.localeCompare(b, undefined, { numeric: true }))
        .at(-1)
    : undefined;
  if (cached) return join(cache, cached, 'bin/node');
  return execFileSync('bash', [join(ROOT, '.ci/node-line'), major], { encoding: 'utf8' }).trim();
}

/** What a finished `realtime` run printed. */
export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `realtime <args>` on a Node binary, in a fresh working directory, with only PATH and `env`. */
export function runOn(node: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(node, [BIN, ...args], {
      cwd: mkdtempSync(join(tmpdir(), 'herald-transport-')),
      env: { PATH: process.env.PATH, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
