import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { main } from '../src/cli/main.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const made: string[] = [];

/** The folder of a fixture project in the repository (read it, never write to it). */
export function fixturePath(name: string): string {
  return join(FIXTURES, name);
}

/** Copies a fixture project into a fresh temp folder and returns its path. */
export function copyFixture(name: string): string {
  const root = mkdtempSync(join(tmpdir(), `assist-${name}-`));
  cpSync(join(FIXTURES, name), root, { recursive: true });
  made.push(root);
  return root;
}

/** Removes every temp project made so far. */
export function cleanFixtures(): void {
  for (const root of made.splice(0)) rmSync(root, { recursive: true, force: true });
}

/** Runs the CLI in-process with no terminal attached, as CI and postinstall scripts do. */
export async function assist(
  root: string,
  ...argv: string[]
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, {
    stdout: (text) => {
      out += text;
    },
    stderr: (text) => {
      err += text;
    },
    interactive: false,
    env: {},
    cwd: root,
  });
  return { code, out, err };
}

/** Every file of a project outside node_modules, by relative path, with the temp root shown as `<root>`. */
export function tree(root: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(path);
      } else {
        files[relative(root, path).split('\\').join('/')] = readFileSync(path, 'utf8').replaceAll(
          root,
          '<root>',
        );
      }
    }
  };
  walk(root);
  return files;
}

/** The files that differ between two trees (added, changed or removed). */
export function changed(before: Record<string, string>, after: Record<string, string>): string[] {
  const paths = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...paths].filter((path) => before[path] !== after[path]).sort();
}

export function read(root: string, path: string): string {
  return readFileSync(join(root, path), 'utf8');
}

export function write(root: string, path: string, content: string): void {
  writeFileSync(join(root, path), content);
}

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const OWN_MODULES = fileURLToPath(new URL('../node_modules', import.meta.url));

/** Copies a fixture app whose imports (hono, pino, pg, PGlite…) resolve from this package's dependencies. */
export function copyFixtureApp(name: string): string {
  const root = copyFixture(name);
  symlinkSync(OWN_MODULES, join(root, 'node_modules'), 'dir');
  return root;
}

/** A tool answer: its text and whether the tool reported an error. */
export interface ToolAnswer {
  text: string;
  isError: boolean;
}

/** Starts `assist mcp` (the built CLI) in a project and connects the MCP SDK's client over stdio. */
export async function startAssistMcp(root: string): Promise<{
  client: Client;
  call(name: string, args?: Record<string, unknown>): Promise<ToolAnswer>;
}> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--cwd', root] }),
  );
  return {
    client,
    async call(name, args = {}) {
      const result = await client.callTool({ name, arguments: args });
      const [content] = result.content as { type: string; text: string }[];
      return { text: content?.text ?? '', isError: result.isError === true };
    },
  };
}

/** A started `assist mcp` with its client. */
export type AssistMcp = Awaited<ReturnType<typeof startAssistMcp>>;

/** Starts `assist mcp` servers as tests ask and closes every one of them with `closeAll` (in `afterAll`). */
export function mcpPool(): { start(root: string): Promise<AssistMcp>; closeAll(): Promise<void> } {
  const started: AssistMcp[] = [];
  return {
    async start(root) {
      const mcp = await startAssistMcp(root);
      started.push(mcp);
      return mcp;
    },
    async closeAll() {
      await Promise.all(started.splice(0).map((mcp) => mcp.client.close()));
      cleanFixtures();
    },
  };
}
