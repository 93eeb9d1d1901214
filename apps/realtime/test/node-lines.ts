import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN } from './run-bin.js';

// Node binaries of other release lines, for tests that run the built bin on each line.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * A Node binary of a major line: this process's own, one `.ci/node-line` cached, the `node` on PATH, or
 * `.ci/node-line` fetching it.
 */
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
  // The machine's own Node, when a test runs on another line (as .ci/node-lines does).
  const onPath = execFileSync('node', ['-p', 'process.execPath + " " + process.versions.node'], {
    encoding: 'utf8',
  }).trim();
  const [path = '', version = ''] = onPath.split(' ');
  if (version.split('.')[0] === major) return path;
  return execFileSync('bash', [join(ROOT, '.ci/node-line'), major], { encoding: 'utf8' }).trim();
}

/** What a finished `realtime` run printed. */
export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A `realtime` process on a Node binary, with what it printed so far. */
export interface Spawned {
  readonly child: ChildProcess;
  readonly output: { stdout: string; stderr: string };
}

/** Starts `realtime <args>` on a Node binary, in a fresh working directory, with only PATH and `env`. */
export function spawnOn(node: string, args: string[], env: NodeJS.ProcessEnv = {}): Spawned {
  const child = spawn(node, [BIN, ...args], {
    cwd: mkdtempSync(join(tmpdir(), 'herald-transport-')),
    env: { PATH: process.env.PATH, ...env },
  });
  const output = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk) => (output.stdout += chunk));
  child.stderr?.on('data', (chunk) => (output.stderr += chunk));
  return { child, output };
}

/**
 * Runs `realtime <args>` on a Node binary to its end. The outer limit (90 s) only stops a run that hangs: on a
 * machine shared by several test suites, starting Node and loading the native candidates took over 30 s.
 */
export function runOn(node: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const { child, output } = spawnOn(node, args, env);
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, ...output });
    });
  });
}
