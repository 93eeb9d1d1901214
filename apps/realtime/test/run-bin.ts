import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startProcess } from '@herald/test-kit';

export const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

/** What a started bin inherits: PATH, and the transport the test project runs on (REALTIME_TRANSPORT). */
function inherited(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH };
  if (process.env.REALTIME_TRANSPORT) env.REALTIME_TRANSPORT = process.env.REALTIME_TRANSPORT;
  return env;
}

/** A `realtime` process started from the built bin. */
export interface RunningBin {
  readonly child: ChildProcess;
  readonly port: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

/** Runs `realtime <args>` to completion and returns its exit code and output. */
export function runBin(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd,
      env: { ...inherited(), ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Starts `realtime server` and resolves once it prints the address it listens on; on this process's Node unless
 * `node` names another binary (or a program that runs like one, as deploy/check/trixie-node22 does).
 */
export async function startBin(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; node?: string } = {},
): Promise<RunningBin> {
  const started = await startProcess(
    options.node ?? process.execPath,
    [BIN, 'server', '--port', '0', '--host', '127.0.0.1', ...args],
    {
      cwd: options.cwd,
      env: { ...inherited(), ...options.env },
      // The banner is complete once it listed the apps (or said there are none yet, with an empty app store).
      ready: (output) =>
        output.includes('REST API') || output.includes('No apps yet')
          ? /listening on [^\s]+:(\d+)/.exec(output)
          : null,
      limitMs: options.timeoutMs ?? 30_000,
    },
  );
  return {
    child: started.child,
    port: Number(started.match[1]),
    get stdout() {
      return started.stdout();
    },
    get stderr() {
      return started.stderr();
    },
    exited: started.exited,
    stop: () => started.stop(),
  };
}
