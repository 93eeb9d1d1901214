import { describe, expect, it } from 'vitest';
import { snippetModule } from './snippet.js';

const bodyOf = (code: string) => {
  const result = snippetModule(code);
  if (!result.ok) throw new Error(result.error);
  return result.source;
};

describe('snippetModule', () => {
  it('returns the last expression even when it shares a line with other statements', () => {
    expect(bodyOf('const a = 2; a * 21')).toBe(
      '\nexport default async function run() {\nconst a = 2; return (a * 21);\n}\n',
    );
  });

  it('hoists imports, keeps TypeScript, and returns an awaited multi-line expression', () => {
    const source = bodyOf(
      "import { app } from '../../internal/src/app.ts';\nimport type { Hono } from 'hono';\nconst typed: Hono = app;\nawait typed.request(\n  '/x',\n)",
    );
    expect(source).toBe(
      "import { app } from '../../internal/src/app.ts';\nimport type { Hono } from 'hono';\nexport default async function run() {\n\n\nconst typed: Hono = app;\nreturn (await typed.request(\n  '/x',\n));\n}\n",
    );
  });

  it('returns nothing when the snippet ends with a declaration, and names the place of a syntax error', () => {
    expect(bodyOf('let x = 1;')).toContain('let x = 1;\n}');
    expect(snippetModule('const = 5')).toEqual({
      ok: false,
      error: expect.stringMatching(/^The code does not parse as TypeScript: .*\(1:6\)/),
    });
  });
});
