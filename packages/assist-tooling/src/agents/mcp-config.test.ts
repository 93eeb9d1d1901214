import { describe, expect, it } from 'vitest';
import { mergeJsonConfig, mergeTomlTable } from './mcp-config.js';

const entry = { command: 'node', args: ['cli.js', 'mcp'] };

describe('mergeJsonConfig', () => {
  it('keeps comments and other servers and leaves an unchanged entry byte for byte', () => {
    const text = '{\n  // mine\n  "mcpServers": { "other": { "command": "x" } }\n}\n';
    const merged = mergeJsonConfig('f.json', text, ['mcpServers', 'assist'], entry);
    expect(merged.ok && merged.value).toContain('// mine');
    expect(merged.ok && merged.value).toMatch(/"other": \{\s*"command": "x"\s*\}/);
    const again = merged.ok
      ? mergeJsonConfig('f.json', merged.value, ['mcpServers', 'assist'], entry)
      : merged;
    expect(again).toEqual(merged);
  });

  it('refuses a broken file instead of overwriting it', () => {
    const merged = mergeJsonConfig('.mcp.json', '{ "mcpServers": ', ['mcpServers', 'assist'], entry);
    expect(merged.ok).toBe(false);
    expect(merged.ok || merged.error.message).toContain('.mcp.json is not valid JSON');
  });
});

describe('mergeTomlTable', () => {
  it('replaces the table and its sub-tables in place and keeps the rest', () => {
    const text =
      '# keep\n[mcp_servers.assist]\ncommand = "old"\n\n[mcp_servers.assist.env]\nA = "1"\n\n[other]\nx = 1\n';
    const merged = mergeTomlTable('c.toml', text, ['mcp_servers', 'assist'], entry);
    expect(merged).toEqual({
      ok: true,
      value: '# keep\n[mcp_servers.assist]\ncommand = "node"\nargs = [ "cli.js", "mcp" ]\n\n[other]\nx = 1\n',
    });
  });
});
