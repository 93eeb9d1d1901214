import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const APP = fileURLToPath(new URL('..', import.meta.url));

interface Started {
  readonly url: string;
  readonly output: () => string;
  stop(): Promise<void>;
}

/** Runs a documented start command and resolves once it prints the address it listens on. */
async function run(command: string, args: string[], cwd: string): Promise<Started> {
  // Port 0 so parallel runs never collide; everything else stays at its documented default.
  const child: ChildProcess = spawn(command, args, {
    cwd,
    detached: true,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NOTIFICATION_CENTER_PORT: '0' },
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner after 60 s:\n${output}`)), 60_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`exited before listening:\n${output}`));
    });
  });
  return {
    url,
    output: () => output,
    async stop() {
      // pnpm runs the script through a shell: signal the whole group this test started.
      if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
      await exited;
    },
  };
}

/**
 * A fresh clone's layout in a temp folder: the built app and its installed dependencies, but no `data/`
 * folder anywhere, so the start has to create it.
 */
async function freshLayout(): Promise<{ root: string; app: string }> {
  const root = await mkdtemp(join(tmpdir(), 'herald-nc-fresh-'));
  const app = join(root, 'apps', 'notification-center');
  await mkdir(app, { recursive: true });
  await copyFile(join(APP, 'package.json'), join(app, 'package.json'));
  await symlink(join(APP, 'dist'), join(app, 'dist'), 'dir');
  await symlink(join(APP, 'node_modules'), join(app, 'node_modules'), 'dir');
  await writeFile(join(root, 'pnpm-workspace.yaml'), 'packages:\n  - apps/*\n');
  await writeFile(join(root, 'package.json'), '{ "name": "fresh-clone", "private": true }\n');
  return { root, app };
}

describe('the documented start commands on a fresh clone', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it.each([
    {
      name: 'node apps/notification-center/dist/bin.js serve (from the root)',
      command: process.execPath,
      args: ['apps/notification-center/dist/bin.js', 'serve'],
      dataDir: (layout: { root: string }) => join(layout.root, 'data', 'notifications'),
      cwd: (layout: { root: string }) => layout.root,
    },
    {
      name: 'pnpm --filter @herald/notification-center start',
      command: 'pnpm',
      args: ['--filter', '@herald/notification-center', 'start'],
      dataDir: (layout: { app: string }) => join(layout.app, 'data', 'notifications'),
      cwd: (layout: { root: string }) => layout.root,
    },
  ])('$name creates ./data/notifications, says where, and answers HTTP', async (c) => {
    const layout = await freshLayout();
    cleanups.push(() => rm(layout.root, { recursive: true, force: true }));
    const dataDir = c.dataDir(layout);
    expect(existsSync(join(layout.root, 'data'))).toBe(false);

    const started = await run(c.command, c.args, c.cwd(layout));
    cleanups.push(() => started.stop());

    expect(started.output()).toContain(`PGlite in ${dataDir}`);
    expect(existsSync(dataDir)).toBe(true);
    const login = await fetch(`${started.url}/login`);
    expect(login.status).toBe(200);
    expect(await login.text()).toContain('Sign in (demo)');
    const api = await fetch(`${started.url}/notification/notifications.json`);
    expect(api.status).toBe(401);
  });
});
