import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanFixtures, copyFixture } from './helpers.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

afterAll(cleanFixtures);

describe('assist mcp', () => {
  it('serves every tool but execute by default, and application-info answers to a real MCP client (needs `pnpm build`)', async () => {
    expect(existsSync(CLI), 'build the package first: pnpm --filter @herald/assist build').toBe(true);
    const root = copyFixture('hono-app');
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--cwd', root] }),
    );
    try {
      expect(client.getServerVersion()?.name).toBe('assist-server');
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name);
      // Without an assist.config turning it on, execute is not offered.
      expect(names).toHaveLength(14);
      expect(names).not.toContain('execute');
      const result = await client.callTool({ name: 'application-info', arguments: {} });
      const [content] = result.content as { type: string; text: string }[];
      const info = JSON.parse(content?.text ?? '{}');
      expect(info).toMatchObject({ name: 'hono-app', packageManager: 'pnpm', node: { target: '22.0.0' } });
      expect(info.packages).toContainEqual({ name: 'hono', version: '4.6.20', direct: true });
      // Direct dependencies by default; chalk comes with another package.
      expect(info.packages.map((pkg: { name: string }) => pkg.name)).not.toContain('chalk');
      const all = await client.callTool({ name: 'application-info', arguments: { dependencies: 'all' } });
      const [allContent] = all.content as { type: string; text: string }[];
      expect(JSON.parse(allContent?.text ?? '{}').packages).toContainEqual({
        name: 'chalk',
        version: '5.4.1',
        direct: false,
      });
    } finally {
      await client.close();
    }
  });
});
