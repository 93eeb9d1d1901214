import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DatabaseConnection } from '../database/connections.js';
import type { QueryOptions } from '../database/engines.js';
import { readAppEnv } from '../env-file.js';

/** One piece of work for the child process; see `child-runner.ts`. */
export type ChildTask =
  | { kind: 'routes'; root: string; entry: string }
  | { kind: 'execute'; root: string; code: string }
  | { kind: 'query'; root: string; connection: DatabaseConnection; sql: string; options: QueryOptions }
  | { kind: 'schema'; root: string; connection: DatabaseConnection };

export type ChildOutcome<T> =
  | { ok: true; value: T; logs: string[] }
  | { ok: false; error: string; logs: string[]; timedOut?: boolean };

/** The file an `execute` snippet is written to: in the project, so its relative imports resolve as the app's. */
export function executeFile(root: string, pid: number | undefined): string {
  return join(root, `.assist-execute-${pid ?? 0}.ts`);
}

const RUNNER = fileURLToPath(new URL('./child-runner.js', import.meta.url));
const MAX_STDIO = 8_000;

/**
 * Runs a task in a fresh Node process in the project folder with the app's `.env` loaded, and kills it
 * (with everything it started) once `timeoutMs` has passed.
 */
export function runInChild<T>(task: ChildTask, timeoutMs: number): Promise<ChildOutcome<T>> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [RUNNER], {
      cwd: task.root,
      env: { NODE_ENV: 'development', ...readAppEnv(task.root) },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let output = '';
    const collect = (chunk: Buffer) => {
      if (output.length < MAX_STDIO) output += chunk.toString('utf8');
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    let settled = false;
    const settle = (outcome: ChildOutcome<T>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (child.exitCode === null) child.kill('SIGKILL');
      // A child killed mid-run cannot remove its own snippet file.
      if (task.kind === 'execute') rmSync(executeFile(task.root, child.pid), { force: true });
      const extra = output.trim() === '' ? [] : [output.trim().slice(0, MAX_STDIO)];
      resolve({ ...outcome, logs: [...outcome.logs, ...extra] });
    };
    const timer = setTimeout(
      () =>
        settle({
          ok: false,
          error: `Stopped after ${timeoutMs / 1000} s (the time limit).`,
          logs: [],
          timedOut: true,
        }),
      timeoutMs,
    );
    child.on('message', (message: ChildOutcome<T>) => settle(message));
    child.on('error', (error) => settle({ ok: false, error: error.message, logs: [] }));
    child.on('exit', (code, signal) =>
      settle({
        ok: false,
        error: `The child process ended (${signal ?? `exit code ${code}`}) without an answer.`,
        logs: [],
      }),
    );
    child.send(task);
  });
}
