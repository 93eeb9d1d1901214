import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assist, changed, cleanFixtures, copyFixture, read, tree, write } from './helpers.js';

afterAll(cleanFixtures);

const ALL_AGENTS = 'claude_code,codex,cursor,copilot,gemini,opencode,junie,zed';

/** Compares every generated file with the reviewed expectation under test/expected/{scenario}. */
async function expectFiles(
  scenario: string,
  files: Record<string, string>,
  paths: readonly string[],
): Promise<void> {
  for (const path of paths) {
    await expect(files[path] ?? '<deleted>').toMatchFileSnapshot(`./expected/${scenario}/${path}`);
  }
}

describe('assist install', () => {
  it('writes guidelines, skills and MCP config for every built-in agent in its own shape', async () => {
    const root = copyFixture('hono-app');
    const before = tree(root);
    const result = await assist(root, 'install', '--agents', ALL_AGENTS, '--packages', 'acme-hono-pack');
    expect(result).toMatchObject({ code: 0, err: '' });
    const after = tree(root);
    const paths = changed(before, after);
    expect(paths.filter((path) => !path.includes('/skills/'))).toEqual([
      '.codex/config.toml',
      '.cursor/mcp.json',
      '.gemini/settings.json',
      '.github/copilot-instructions.md',
      '.gitignore',
      '.junie/mcp/mcp.json',
      '.mcp.json',
      '.vscode/mcp.json',
      '.zed/settings.json',
      'AGENTS.md',
      'CLAUDE.md',
      'GEMINI.md',
      'assist.json',
      'opencode.json',
    ]);
    // Every skills folder gets the same four skills; agents sharing .agents/skills get it once.
    const skillDirs = new Set(
      paths.filter((path) => path.includes('/skills/')).map((path) => path.split('/skills/')[0]),
    );
    expect([...skillDirs].sort()).toEqual(['.agents', '.claude', '.cursor', '.gemini', '.github', '.junie']);
    expect(paths.filter((path) => path.startsWith('.claude/skills/'))).toEqual([
      '.claude/skills/deploy/SKILL.md',
      '.claude/skills/deploy/deploy.sh',
      '.claude/skills/hono-routing/SKILL.md',
      '.claude/skills/mcp-server-development/SKILL.md',
      '.claude/skills/mcp-server-development/references/checklist.md',
      '.claude/skills/sending-notifications/SKILL.md',
    ]);
    await expectFiles(
      'all-agents',
      after,
      paths.filter((path) => !/^\.(agents|cursor|gemini|github|junie)\/skills\//.test(path)),
    );
    await expect(result.out.replaceAll(root, '<root>')).toMatchFileSnapshot(
      './expected/all-agents/stdout.txt',
    );

    // Key parts, spelled out: the user's text and servers survive, each agent gets its own MCP shape.
    expect(after['CLAUDE.md']).toMatch(
      /^# hono-app\n\nNotes written by the team; assist must keep them.\n\n<assist-guidelines>\n/,
    );
    expect(after['AGENTS.md']).toBe(after['CLAUDE.md']?.replace(/^[\s\S]*?(?=<assist-guidelines>)/, ''));
    expect(after['.cursor/mcp.json']).toContain('// a server the team added by hand');
    expect(JSON.parse(after['.mcp.json'] ?? '')).toEqual({
      mcpServers: {
        assist: { type: 'stdio', command: 'node', args: ['node_modules/@herald/assist/dist/cli.js', 'mcp'] },
      },
    });
    expect(JSON.parse(after['.vscode/mcp.json'] ?? '').servers.assist.type).toBe('stdio');
    expect(JSON.parse(after['opencode.json'] ?? '')).toEqual({
      $schema: 'https://opencode.ai/config.json',
      mcp: {
        assist: {
          type: 'local',
          command: ['node', 'node_modules/@herald/assist/dist/cli.js', 'mcp'],
          enabled: true,
        },
      },
    });
    expect(JSON.parse(after['.junie/mcp/mcp.json'] ?? '').mcpServers.assist.args).toEqual([
      '<root>/node_modules/@herald/assist/dist/cli.js',
      'mcp',
      '--cwd',
      '<root>',
    ]);
    expect(JSON.parse(after['.zed/settings.json'] ?? '')).toHaveProperty(
      'context_servers.assist.command',
      'node',
    );
    expect(after['.codex/config.toml']).toBe(
      '# team settings\nmodel = "gpt-5"\n\n[mcp_servers.github]\ncommand = "npx"\nargs = ["-y", "@acme/github-mcp"]\n\n' +
        '[mcp_servers.assist]\ncommand = "node"\nargs = [ "node_modules/@herald/assist/dist/cli.js", "mcp" ]\n',
    );
  });

  it('changes nothing on a second run', async () => {
    const root = copyFixture('hono-app');
    await assist(root, 'install', '--agents', ALL_AGENTS, '--packages', 'acme-hono-pack');
    const first = tree(root);
    const again = await assist(root, 'install', '--agents', ALL_AGENTS, '--packages', 'acme-hono-pack');
    const update = await assist(root, 'update');
    expect(again.out).toContain('Everything is up to date; nothing changed.');
    expect(update.out).toContain('Everything is up to date; nothing changed.');
    expect(changed(first, tree(root))).toEqual([]);
  });

  it('keeps what the user wrote outside the markers and restores what was edited inside', async () => {
    const root = copyFixture('hono-app');
    await assist(root, 'install', '--agents', 'claude_code');
    const generated = read(root, 'CLAUDE.md');
    write(
      root,
      'CLAUDE.md',
      `${generated.replace('## foundation', '## foundation\n\nHAND EDIT INSIDE')}\n## Team notes\n\nDeploys happen on Fridays.\n`,
    );
    await assist(root, 'update');
    expect(read(root, 'CLAUDE.md')).toBe(`${generated}\n## Team notes\n\nDeploys happen on Fridays.\n`);
  });

  it('prints the diff with --dry-run and writes nothing', async () => {
    const root = copyFixture('hono-app');
    const before = tree(root);
    const result = await assist(root, 'install', '--agents', 'claude_code', '--dry-run');
    expect(result.code).toBe(0);
    expect(changed(before, tree(root))).toEqual([]);
    expect(result.out).toContain('--- a/CLAUDE.md\n+++ b/CLAUDE.md\n');
    expect(result.out).toContain(
      ' Notes written by the team; assist must keep them.\n+\n+<assist-guidelines>\n',
    );
    expect(result.out).toContain('--- /dev/null\n+++ b/.mcp.json\n');
    expect(result.out).toMatch(/Dry run: \d+ file\(s\) would change; nothing was written\.\n/);
  });

  it("lets .ai/guidelines override a bundled guideline by path and adds the app's own guidelines first", async () => {
    const root = copyFixture('hono-app');
    await assist(root, 'install', '--agents', 'claude_code');
    const body = read(root, 'CLAUDE.md');
    expect(body).toContain('## .ai/project\n\n- API handlers live in `src/routes/`');
    expect(body.indexOf('## .ai/project')).toBeLessThan(body.indexOf('## foundation'));
    expect(body).toContain('## hono/v4/core\n\n- Our Hono conventions replace the bundled ones');
    expect(body).not.toContain('Build routes on `new Hono()`');
    // An empty override removes the guideline altogether.
    write(root, '.ai/guidelines/hono/4/core.md', '');
    await assist(root, 'update');
    expect(read(root, 'CLAUDE.md')).not.toContain('## hono/v4/core');
    // Without the override the bundled Hono 4 text applies, with the 4.6 delta chosen by version.
    rmSync(join(root, '.ai/guidelines/hono'), { recursive: true });
    await assist(root, 'update');
    expect(read(root, 'CLAUDE.md')).toContain('## hono/v4/core\n\n- Build routes on `new Hono()`');
    expect(read(root, 'CLAUDE.md')).toContain('This Hono has the `contextStorage()` middleware');
  });

  it('composes a skill pack by the installed major, the major skill winning by name', async () => {
    const root = copyFixture('hono-app');
    await assist(root, 'install', '--agents', 'claude_code', '--packages', 'acme-hono-pack');
    const body = read(root, 'CLAUDE.md');
    expect(body).toContain('## hono/testing\n\n- Test Hono routes with `app.request()`');
    expect(body).toContain(
      '## hono/v4/middleware\n\n- In Hono 4, write middleware with `createMiddleware()`',
    );
    expect(body).not.toContain('Hono 3 middleware');
    expect(read(root, '.claude/skills/hono-routing/SKILL.md')).toContain(
      'description: Use when adding or reorganising routes in a Hono 4 app.',
    );
  });

  it('offers third-party packages instead of adding them, and adds them with --packages', async () => {
    const root = copyFixture('hono-app');
    const plain = await assist(root, 'install', '--agents', 'claude_code');
    expect(plain.out).toContain(
      'Note: Not added (third-party, needs your consent): acme-agent, acme-charts, acme-hono-pack.',
    );
    expect(read(root, 'CLAUDE.md')).not.toContain('acme-charts/core');
    expect(read(root, 'CLAUDE.md')).toContain('## @herald/notifications/core');
    await assist(root, 'install', '--agents', 'claude_code', '--packages', 'acme-charts');
    expect(read(root, 'CLAUDE.md')).toContain(
      '## acme-charts/core\n\n- Render charts with `<AcmeChart spec={...} />`',
    );
    expect(JSON.parse(read(root, 'assist.json')).packages).toEqual(['@herald/notifications', 'acme-charts']);
  });

  it('emits TypeScript guidance once, for the installed major only', async () => {
    const root = copyFixture('hono-app');
    const typescript = (text: string) =>
      /## typescript\/core\n\n([\s\S]*?)(?=\n## |\n<\/assist-guidelines>)/.exec(text)?.[1] ?? '';
    await assist(root, 'install', '--agents', 'claude_code');
    const sections = [...read(root, 'CLAUDE.md').matchAll(/^## (typescript\/.*)$/gm)].map(
      (match) => match[1],
    );
    expect(sections).toEqual(['typescript/core']);
    expect(typescript(read(root, 'CLAUDE.md'))).toContain('TypeScript 5:');
    expect(typescript(read(root, 'CLAUDE.md'))).not.toMatch(/TypeScript [67]|5\.\d/);
    const headlines = ['TypeScript 5:', 'TypeScript 6 defaults:', 'TypeScript 7 is the native compiler'];
    for (const [version, says] of [
      ['6.0.3', 'TypeScript 6 defaults:'],
      ['7.0.1', 'TypeScript 7 is the native compiler'],
    ] as const) {
      write(
        root,
        'node_modules/typescript/package.json',
        `{ "name": "typescript", "version": "${version}" }\n`,
      );
      await assist(root, 'update');
      const text = typescript(read(root, 'CLAUDE.md'));
      expect(headlines.filter((headline) => text.includes(headline))).toEqual([says]);
    }
  });

  it('turns @scoped blocks into .ai/rules and native rule files when scoped_guidelines is on', async () => {
    const root = copyFixture('hono-app');
    write(root, 'assist.config.json', '{ "Assist": { "rules": { "scoped_guidelines": true } } }\n');
    const before = tree(root);
    await assist(root, 'install', '--agents', 'claude_code,cursor,copilot');
    const after = tree(root);
    const rules = changed(before, after).filter((path) => /rules|instructions\//.test(path));
    expect(rules).toEqual([
      '.ai/rules/assist/index.md',
      '.ai/rules/assist/routes.md',
      '.ai/rules/assist/test.md',
      '.claude/rules/assist/routes.md',
      '.claude/rules/assist/test.md',
      '.cursor/rules/assist/routes.mdc',
      '.cursor/rules/assist/test.mdc',
      '.github/instructions/assist-routes.instructions.md',
      '.github/instructions/assist-test.instructions.md',
    ]);
    await expectFiles('scoped-rules', after, [...rules, 'CLAUDE.md']);
    expect(after['CLAUDE.md']).not.toContain('### Route files');
    expect(after['CLAUDE.md']).toContain('read `.ai/rules/assist/index.md`');
    // Skills never promote their scoped text: it stays in the skill.
    expect(after['.claude/skills/sending-notifications/SKILL.md']).toContain(
      'Keep notification classes in `src/notifications/`',
    );

    // Switched off again: the rule files go away and the text comes back inline.
    write(root, 'assist.config.json', '{ "Assist": { "rules": { "scoped_guidelines": false } } }\n');
    await assist(root, 'update');
    const inline = tree(root);
    expect(Object.keys(inline).filter((path) => /rules\/|instructions\//.test(path))).toEqual([]);
    // Inline, the block keeps its file patterns on its heading, so the rule does not read as global.
    expect(inline['CLAUDE.md']).toContain('### Route files (`src/routes/**`)\n- Export one router per file');
    expect(inline['CLAUDE.md']).not.toContain('@scoped');
  });

  it('registers a custom agent from a package setup hook and writes its files', async () => {
    const root = copyFixture('hono-app');
    const result = await assist(root, 'install', '--agents', 'acme', '--packages', 'acme-agent');
    expect(result).toMatchObject({ code: 0, err: '' });
    expect(result.out).toContain('assist install: Acme Agent\n');
    const files = tree(root);
    expect(read(root, '.acme/instructions.md')).toMatch(/^<assist-guidelines>\n[\s\S]*## foundation/);
    expect(JSON.parse(files['.acme/mcp.json'] ?? '')).toEqual({
      tools: { mcp: { assist: { run: ['node', 'node_modules/@herald/assist/dist/cli.js', 'mcp'] } } },
    });
    expect(Object.keys(files).filter((path) => path.startsWith('.acme/skills/'))).toContain(
      '.acme/skills/deploy/SKILL.md',
    );
  });

  it('fails clearly on an unknown agent and on a skill without a description', async () => {
    const root = copyFixture('hono-app');
    const unknown = await assist(root, 'install', '--agents', 'notepad');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('Unknown agent(s): notepad. Known: claude_code, codex');
    write(root, '.ai/skills/deploy/SKILL.md', '---\nname: deploy\n---\n\nNo description.\n');
    const broken = await assist(root, 'install', '--agents', 'claude_code');
    expect(broken.code).toBe(1);
    expect(broken.err).toContain(
      `${join(root, '.ai/skills/deploy/SKILL.md')} needs a "description" in its front matter.`,
    );
    expect(tree(root)['CLAUDE.md']).toBe('# hono-app\n\nNotes written by the team; assist must keep them.\n');
  });

  it('reports every invalid config key with its path', async () => {
    const root = copyFixture('hono-app');
    write(
      root,
      'assist.config.json',
      '{ "Assist": { "guidelines": { "dependencies": "some" }, "mcp": { "enabled": "yes" } } }',
    );
    const result = await assist(root, 'install', '--agents', 'claude_code');
    expect(result.code).toBe(1);
    expect(result.err).toContain('assist.config.json is invalid:');
    expect(result.err).toContain('Assist.guidelines.dependencies:');
    expect(result.err).toContain('Assist.mcp.enabled:');
  });
});

describe('assist update', () => {
  it('exits quietly before any install, so a postinstall script never fails', async () => {
    const root = copyFixture('hono-app');
    const result = await assist(root, 'update');
    expect(result).toEqual({
      code: 0,
      out: 'assist is not installed in this project yet; run `assist install` first. Nothing written.\n',
      err: '',
    });
    expect(Object.keys(tree(root))).not.toContain('assist.json');
  });

  it('publishes a newly installed first-party package only when discovering', async () => {
    const root = copyFixture('hono-app');
    await assist(root, 'install', '--agents', 'claude_code');
    const dir = join(root, 'node_modules/@herald/teamchat-channel');
    mkdirSync(join(dir, 'resources/assist/skills/team-chat'), { recursive: true });
    write(
      root,
      'node_modules/@herald/teamchat-channel/package.json',
      '{ "name": "@herald/teamchat-channel", "version": "0.2.0" }\n',
    );
    write(
      root,
      'node_modules/@herald/teamchat-channel/resources/assist/skills/team-chat/SKILL.md',
      '---\nname: team-chat\ndescription: Use when posting to Rocket.Chat through TeamChatMessage.\n---\n\nBuild messages with `TeamChatMessage.create()`.\n',
    );
    const manifest = JSON.parse(read(root, 'package.json'));
    manifest.dependencies['@herald/teamchat-channel'] = '^0.2.0';
    write(root, 'package.json', JSON.stringify(manifest));

    const before = tree(root);
    await assist(root, 'update', '--no-discover');
    // Only the stack list picks up the new dependency; its skill is not published without discovery.
    expect(changed(before, tree(root))).toEqual(['CLAUDE.md']);
    expect(JSON.parse(read(root, 'assist.json')).packages).toEqual(['@herald/notifications']);

    const discovering = await assist(root, 'update');
    expect(discovering.out).toContain('created .claude/skills/team-chat/SKILL.md');
    expect(JSON.parse(read(root, 'assist.json')).packages).toContain('@herald/teamchat-channel');
    expect(read(root, 'CLAUDE.md')).toContain('@herald/teamchat-channel 0.2.0');
  });

  it('deletes the files of a skill that is no longer installed', async () => {
    const root = copyFixture('hono-app');
    await assist(root, 'install', '--agents', 'claude_code');
    expect(Object.keys(tree(root))).toContain('.claude/skills/deploy/deploy.sh');
    rmSync(join(root, '.ai/skills/deploy'), { recursive: true });
    const result = await assist(root, 'update');
    expect(result.out).toContain('deleted .claude/skills/deploy/deploy.sh');
    expect(Object.keys(tree(root)).filter((path) => path.includes('/deploy/'))).toEqual([]);
  });
});
