import { afterAll, describe, expect, it } from 'vitest';
import { copyFixture, mcpPool } from './helpers.js';

const pool = mcpPool();
afterAll(pool.closeAll);

const textOf = (contents: unknown[]): string =>
  contents.map((item) => (item as { text?: string }).text ?? '').join('');

describe('assist mcp resources', () => {
  it('serves the composed guidelines and every file of each installed skill', async () => {
    const mcp = await pool.start(copyFixture('hono-app'));
    const { resources } = await mcp.client.listResources();
    const uris = resources.map((resource) => resource.uri);
    expect(uris).toContain('assist://guidelines');
    expect(uris).toContain('assist://skills/deploy/SKILL.md');
    expect(uris).toContain('assist://skills/deploy/deploy.sh');
    expect(resources.find((resource) => resource.uri === 'assist://skills/deploy/SKILL.md')).toMatchObject({
      name: 'deploy',
      description: 'Use when asked to deploy this app to staging or production.',
      mimeType: 'text/markdown',
    });

    const guidelines = textOf((await mcp.client.readResource({ uri: 'assist://guidelines' })).contents);
    expect(guidelines).toMatch(/^## \.ai\/project\n/);
    expect(guidelines).toContain('## foundation');
    expect(guidelines).toContain('API handlers live in `src/routes/`');
    const skill = textOf(
      (await mcp.client.readResource({ uri: 'assist://skills/deploy/SKILL.md' })).contents,
    );
    expect(skill).toContain('name: deploy');
    await expect(mcp.client.readResource({ uri: 'assist://skills/deploy/missing.md' })).rejects.toThrow(
      /No skill file deploy\/missing\.md/,
    );
  });
});
