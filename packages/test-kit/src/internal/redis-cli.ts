import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Runs one `redis-cli` command against a loopback port and returns its trimmed output. */
export async function redisCli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args]);
  return stdout.trim();
}

/** Runs `redis-cli` with arguments of its own (`--cluster create …`). */
export async function redisCliTool(...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', args);
  return stdout;
}
