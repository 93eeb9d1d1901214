import { type ChildProcess, spawn } from 'node:child_process';

/** How to start a process and what line says it is ready. */
export interface StartProcessOptions {
  readonly cwd?: string;
  /** The whole environment of the process (nothing is inherited unless given). */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * Says, from everything printed so far (stdout and stderr), whether the process is ready: a pattern that matches
   * or a function that returns a match. `startProcess` resolves with the first match.
   */
  readonly ready: RegExp | ((output: string) => RegExpExecArray | null | undefined);
  /** How long the process may take to get ready before it is killed and the start fails (60 s by default). */
  readonly limitMs?: number;
}

/** A process started by a test, ready. */
export interface StartedProcess {
  readonly child: ChildProcess;
  /** What `ready` matched. */
  readonly match: RegExpExecArray;
  /** Everything it printed on stdout so far. */
  readonly stdout: () => string;
  /** Everything it printed on stderr so far. */
  readonly stderr: () => string;
  /** Resolves with the exit code once the process exited. */
  readonly exited: Promise<number | null>;
  /** Sends `signal` (SIGTERM by default) by PID unless it already exited, and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const READY_LIMIT_MS = 60_000;

/**
 * Spawns `command args` and resolves once its output satisfies `ready`. A process that exits first, or is not
 * ready within the limit (then it is killed), fails the start with everything it printed.
 */
export function startProcess(
  command: string,
  args: readonly string[],
  options: StartProcessOptions,
): Promise<StartedProcess> {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      process.kill(child.pid, signal);
    }
    return exited;
  };
  const test = typeof options.ready === 'function' ? options.ready : matcher(options.ready);
  const limitMs = options.limitMs ?? READY_LIMIT_MS;
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new Error(`${command} ${why}:\n${stdout}\n${stderr}`));
    };
    const timer = setTimeout(() => {
      fail(`was not ready within ${limitMs} ms`);
      void stop('SIGKILL');
    }, limitMs);
    const look = () => {
      const match = settled ? undefined : test(stdout + stderr);
      if (!match) return;
      settled = true;
      clearTimeout(timer);
      resolve({ child, match, stdout: () => stdout, stderr: () => stderr, exited, stop });
    };
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      look();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      look();
    });
    void exited.then((code) => fail(`exited with ${code} before it was ready`));
  });
}

function matcher(pattern: RegExp): (output: string) => RegExpExecArray | null {
  return (output) => new RegExp(pattern.source, pattern.flags.replace('g', '')).exec(output);
}
