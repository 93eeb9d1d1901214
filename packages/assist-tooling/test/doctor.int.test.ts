import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { assist, cleanFixtures, copyFixture, read } from './helpers.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

afterAll(cleanFixtures);

/** The hono fixture installed for Claude Code and Codex, its MCP command the built CLI of this package. */
async function installed(): Promise<string> {
  const root = copyFixture('hono-app');
  writeFileSync(
    join(root, 'assist.config.json'),
    JSON.stringify({ Assist: { mcp: { command: process.execPath, args: [CLI, 'mcp'] } } }),
  );
  expect((await assist(root, 'install', '--agents', 'claude_code,codex')).code).toBe(0);
  return root;
}

describe('assist doctor', () => {
  it('starts the configured command once, completes the handshake and lists the tools', async () => {
    const root = await installed();
    const result = await assist(root, 'doctor');
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    const lines = result.out.split('\n');
    expect(lines[0]).toBe(`ok    ${process.execPath} ${CLI} mcp`);
    expect(lines[1]).toBe('      configured for Claude Code (.mcp.json), Codex (.codex/config.toml)');
    expect(lines[2]).toMatch(
      /^ {6}assist-server \S+, 14 tools: application-info, browser-logs, .*search-docs$/,
    );
    expect(lines[3]).toBe('All 1 MCP command(s) started and answered.');
  });

  it('reports a command that exits, one that does not exist and a missing entry plainly, and exits 1', async () => {
    const root = await installed();
    const claude = JSON.parse(read(root, '.mcp.json'));
    claude.mcpServers.assist.args = ['missing-cli.js', 'mcp'];
    claude.mcpServers.assist.command = 'node';
    writeFileSync(join(root, '.mcp.json'), JSON.stringify(claude));
    writeFileSync(
      join(root, '.codex/config.toml'),
      read(root, '.codex/config.toml').replace(
        /(\[mcp_servers\.assist\]\ncommand = )".*"/,
        '$1"assist-no-such-command"',
      ),
    );
    writeFileSync(
      join(root, 'assist.json'),
      read(root, 'assist.json').replace('"codex"', '"codex", "cursor"'),
    );
    const result = await assist(root, 'doctor');
    expect(result.code).toBe(1);
    expect(result.out).toContain(
      'FAIL  node missing-cli.js mcp\n      configured for Claude Code (.mcp.json)\n      the server exited before completing the MCP handshake\n',
    );
    // What the process said, without its stack frames.
    expect(result.out).toMatch(/\n {6}Error: Cannot find module '.*missing-cli\.js'\n(?! +at )/);
    expect(result.out).toContain(
      'FAIL  assist-no-such-command ' +
        `${CLI} mcp\n      configured for Codex (.codex/config.toml)\n      command not found: assist-no-such-command\n`,
    );
    expect(result.out).toContain(
      'FAIL  (no command)\n      configured for Cursor (.cursor/mcp.json)\n      no server at mcpServers.assist\n',
    );
    expect(result.out).toMatch(/3 of 3 MCP command\(s\) failed\.\n$/);
  });

  it('says to install first in a project assist has not set up', async () => {
    const result = await assist(copyFixture('hono-app'), 'doctor');
    expect(result).toMatchObject({ code: 1, out: '' });
    expect(result.err).toBe('assist doctor: assist is not installed here yet; run `assist install` first.\n');
  });
});
