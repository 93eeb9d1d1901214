import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository root (two levels above this folder). */
export const repoRoot = resolve(import.meta.dirname, '../..');

export interface PackageJson {
  name: string;
  version: string;
  private?: boolean;
  type?: string;
  main?: string;
  exports?: Record<string, string | Record<string, string>>;
  bin?: string | Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

export interface WorkspacePackage {
  /** Folder name under packages/. */
  folder: string;
  dir: string;
  manifest: PackageJson;
}

export function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

/**
 * Every publishable package: each folder of `packages/` with a package.json that is not private. Read from the
 * folder listing, so a package added later is covered without touching this check.
 */
export function publishablePackages(): WorkspacePackage[] {
  const base = join(repoRoot, 'packages');
  return readdirSync(base, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(base, entry.name, 'package.json')))
    .map((entry) => {
      const dir = join(base, entry.name);
      return { folder: entry.name, dir, manifest: readJson<PackageJson>(join(dir, 'package.json')) };
    })
    .filter((pkg) => pkg.manifest.private !== true)
    .sort((a, b) => a.folder.localeCompare(b.folder));
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end and answers its exit code and output; never throws on a non-zero exit. */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<RunResult> {
  return new Promise((resolvePromise) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: { ...process.env, ...options.env },
        timeout: options.timeoutMs ?? 300_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolvePromise({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

/** Like {@link run}, but a non-zero exit throws with the command's output in the message. */
export async function runOk(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<RunResult> {
  const result = await run(command, args, options);
  if (result.code !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} (in ${options.cwd}) exited ${result.code}\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result;
}
