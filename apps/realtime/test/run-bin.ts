import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

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
  stdout: string;
  stderr: string;
  exited: Promise<number | null>;
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

/** Starts `realtime server` and resolves once it prints the address it listens on. */
export function startBin(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<RunningBin> {
  const child = spawn(process.execPath, [BIN, 'server', '--port', '0', '--host', '127.0.0.1', ...args], {
    cwd: options.cwd,
    env: { ...inherited(), ...options.env },
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const running = {
      child,
      port: 0,
      stdout: '',
      stderr: '',
      exited,
      stop: async () => {
        if (child.exitCode === null) child.kill('SIGTERM');
        return exited;
      },
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`realtime did not start:\n${running.stdout}\n${running.stderr}`));
    }, options.timeoutMs ?? 30_000);
    child.stderr.on('data', (chunk) => (running.stderr += chunk));
    child.stdout.on('data', (chunk) => {
      running.stdout += chunk;
      const match = /listening on [^\s]+:(\d+)/.exec(running.stdout);
      // The banner is complete once it listed the apps (or said there are none yet, with an empty app store).
      const listed = running.stdout.includes('REST API') || running.stdout.includes('No apps yet');
      if (match && running.port === 0 && listed) {
        running.port = Number(match[1]);
        clearTimeout(timer);
        resolve(running);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      if (running.port === 0)
        reject(new Error(`realtime exited with ${code}:\n${running.stdout}\n${running.stderr}`));
    });
  });
}
