import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterAll, describe, expect, it } from 'vitest';
import { assist, cleanFixtures, copyFixture, fixturePath, read } from './helpers.js';

afterAll(cleanFixtures);

describe('assist install: what a new user trips on', () => {
  it('adds .assist/ to .gitignore, creating it, and only once', async () => {
    const root = copyFixture('hono-app');
    expect((await assist(root, 'install', '--agents', 'claude_code')).code).toBe(0);
    expect(read(root, '.gitignore')).toBe('# assist state (documentation index, browser logs)\n.assist/\n');
    writeFileSync(join(root, '.gitignore'), `node_modules/\n${read(root, '.gitignore')}`);
    expect((await assist(root, 'install', '--agents', 'claude_code')).out).toContain('nothing changed');
    expect(read(root, '.gitignore').match(/\.assist\//g)).toHaveLength(1);
  });

  it('keeps a .gitignore of the team and appends the state folder to it', async () => {
    const root = copyFixture('hono-app');
    writeFileSync(join(root, '.gitignore'), 'node_modules/\n.env\n');
    const result = await assist(root, 'install', '--agents', 'claude_code');
    expect(result.out).toContain('updated .gitignore');
    expect(read(root, '.gitignore')).toBe(
      'node_modules/\n.env\n\n# assist state (documentation index, browser logs)\n.assist/\n',
    );
  });

  it('leaves a workspace alone when the repository root already ignores .assist/ everywhere', async () => {
    const repo = copyFixture('hono-app');
    mkdirSync(join(repo, '.git'));
    writeFileSync(join(repo, '.gitignore'), 'node_modules\n.assist/\n');
    const app = join(repo, 'apps/api');
    cpSync(fixturePath('hono-app'), app, { recursive: true });
    expect((await assist(app, 'install', '--agents', 'claude_code')).code).toBe(0);
    expect(existsSync(join(app, '.gitignore'))).toBe(false);
    // A root pattern anchored with a slash ignores only the root's own folder.
    writeFileSync(join(repo, '.gitignore'), '/.assist/\n');
    expect((await assist(app, 'install', '--agents', 'claude_code')).out).toContain('created .gitignore');
  });

  it('never writes the bare name `assist` into MCP configs before @herald/assist is installed', async () => {
    const root = copyFixture('hono-app');
    rmSync(join(root, 'node_modules/@herald/assist'), { recursive: true });
    const result = await assist(root, 'install', '--agents', 'claude_code,codex,opencode,junie');
    expect(result.code).toBe(0);
    expect(JSON.parse(read(root, '.mcp.json')).mcpServers.assist).toEqual({
      type: 'stdio',
      command: 'node',
      args: ['node_modules/@herald/assist/dist/cli.js', 'mcp'],
    });
    expect(parseToml(read(root, '.codex/config.toml')).mcp_servers).toMatchObject({
      assist: { command: 'node', args: ['node_modules/@herald/assist/dist/cli.js', 'mcp'] },
    });
    expect(JSON.parse(read(root, 'opencode.json')).mcp.assist.command).toEqual([
      'node',
      'node_modules/@herald/assist/dist/cli.js',
      'mcp',
    ]);
    expect(JSON.parse(read(root, '.junie/mcp/mcp.json')).mcpServers.assist.args).toEqual([
      join(root, 'node_modules/@herald/assist/dist/cli.js'),
      'mcp',
      '--cwd',
      root,
    ]);
    expect(result.out).toContain(
      'Note: @herald/assist is not installed in this project; the MCP config starts it from node_modules/@herald/assist once you run `pnpm add -D @herald/assist`.',
    );
  });
});
