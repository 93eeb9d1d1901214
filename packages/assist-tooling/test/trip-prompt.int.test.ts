import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanFixtures, copyFixture } from './helpers.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

afterAll(cleanFixtures);

/**
 * Runs `assist install` on a real pseudo-terminal (util-linux `script`), pressing Enter at each prompt, the
 * way `npx assist install` runs from a shell: npx sets `npm_lifecycle_event=npx`.
 */
function installOnTerminal(root: string, lifecycle: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      'script',
      ['-qec', `stty cols 200 rows 50; "${process.execPath}" "${CLI}" install --cwd "${root}"`, '/dev/null'],
      {
        env: { ...process.env, CI: '', npm_lifecycle_event: lifecycle },
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    let out = '';
    let answered = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      // Without colours, so the prompt's text can be matched.
      out += stripVTControlCharacters(chunk.toString('utf8'));
      const prompts = (out.match(/Which agents should assist set up\?|ship guidelines or skills/g) ?? [])
        .length;
      for (; answered < prompts; answered++) child.stdin.write('\r');
    });
    child.on('close', (code) => {
      child.stdin.end();
      resolve({ code, out: out.replace(/\r/g, '') });
    });
  });
}

describe('npx assist install without --agents on a terminal', () => {
  it('asks which agents to set up, with the detected ones preselected', async () => {
    const root = copyFixture('hono-app');
    const { code, out } = await installOnTerminal(root, 'npx');
    expect(out).toContain('Which agents should assist set up?');
    expect(code).toBe(0);
    // Enter keeps the preselection: the fixture has CLAUDE.md, .codex/ and .cursor/.
    expect(out).toContain('assist install: Claude Code, Codex, Cursor');
  });

  it('does not ask from an install script, even on a terminal', async () => {
    const root = copyFixture('hono-app');
    const { code, out } = await installOnTerminal(root, 'postinstall');
    expect(out).not.toContain('Which agents');
    expect(code).toBe(0);
    expect(out).toContain('assist install: Claude Code, Codex, Cursor');
  });
});
