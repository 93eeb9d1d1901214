import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A running `realtime server` process, as it registers itself for `realtime restart_server`. */
export interface RegisteredServer {
  readonly pid: number;
  readonly port: number;
  readonly cwd: string;
}

/** Where running servers register themselves (one JSON file per process). */
export function controlDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.REALTIME_CONTROL_DIR ?? join(tmpdir(), 'herald-realtime');
}

/** Registers this process; returns a function that removes the registration. */
export function registerServer(server: RegisteredServer, dir = controlDir()): () => void {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${server.pid}.json`);
  writeFileSync(file, JSON.stringify(server));
  return () => rmSync(file, { force: true });
}

/** Whether a process with this pid runs (signal 0 checks without signalling). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    // ESRCH: no such process (a server that died without unregistering).
    return false;
  }
}

/** The registered servers still running; registrations of dead processes are removed. */
export function runningServers(dir = controlDir()): RegisteredServer[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((name) => name.endsWith('.json'));
  } catch {
    // No directory yet: no server ever registered.
    return [];
  }
  const alive: RegisteredServer[] = [];
  for (const name of files) {
    const file = join(dir, name);
    try {
      const entry = JSON.parse(readFileSync(file, 'utf8')) as RegisteredServer;
      if (isAlive(entry.pid)) alive.push(entry);
      else rmSync(file, { force: true });
    } catch {
      // A half-written or foreign file: leave it alone.
    }
  }
  return alive;
}
