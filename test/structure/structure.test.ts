import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  doubleCasts,
  importCircles,
  longFunctions,
  MAX_FUNCTION_LINES,
  repoRoot,
  sourceFiles,
  sourceRoots,
} from './structure.js';

// Issue 25's rules for every package's and app's sources: one reader can hold each function, follow each import
// one way, and trust each type.
const roots = sourceRoots();

describe('the sources of every package and app', () => {
  it('are found (the check reads something)', () => {
    expect(roots.length).toBeGreaterThanOrEqual(10);
    expect(roots.map((root) => relative(repoRoot, root))).toContain('packages/realtime-server/src');
  });

  it(`have no function longer than ${MAX_FUNCTION_LINES} lines`, () => {
    const long = roots
      .flatMap(sourceFiles)
      .flatMap((file) => longFunctions(file))
      .map(({ file, line, name, lines }) => `${relative(repoRoot, file)}:${line} ${name} (${lines} lines)`);
    expect(long).toEqual([]);
  });

  it('have no import circles inside any package', () => {
    const circles = roots.flatMap((root) =>
      importCircles(sourceFiles(root), repoRoot).map((circle) => circle.join(' -> ')),
    );
    expect(circles).toEqual([]);
  });

  it('have no `as unknown as` casts', () => {
    const casts = roots
      .flatMap(sourceFiles)
      .flatMap((file) => doubleCasts(file))
      .map(({ file, line, text }) => `${relative(repoRoot, file)}:${line} ${text}`);
    expect(casts).toEqual([]);
  });
});

describe('the structure checks', () => {
  const dir = mkdtempSync(join(tmpdir(), 'herald-structure-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('measure a function from its first line to its last', () => {
    const body = Array.from({ length: MAX_FUNCTION_LINES - 1 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const fits = write('fits.ts', `export function fits() {\n${body.split('\n').slice(1).join('\n')}\n}\n`);
    const over = write('over.ts', `export const over = () => {\n${body}\n};\n`);
    expect(longFunctions(fits)).toEqual([]);
    expect(longFunctions(over)).toEqual([
      { file: over, line: 1, name: 'over', lines: MAX_FUNCTION_LINES + 1 },
    ]);
  });

  it('find a circle made of type-only imports and report it once', () => {
    const a = write('a.ts', "import type { B } from './b.js';\nexport interface A { b?: B }\n");
    const b = write('b.ts', "import { c } from './c.js';\nexport interface B { c: typeof c }\n");
    const c = write('c.ts', "export type { A } from './a.js';\nexport const c = 1;\n");
    const free = write('free.ts', "import { c } from './c.js';\nexport const d = c;\n");
    expect(importCircles([a, b, c, free], dir)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('find a circle through a dynamic import', () => {
    const e = write('e.ts', "export const load = () => import('./f.js');\n");
    const f = write('f.ts', "import { load } from './e.js';\nexport const g = load;\n");
    expect(importCircles([e, f], dir)).toEqual([['e.ts', 'f.ts']]);
  });

  it('find `as unknown as` and leave single casts alone', () => {
    const file = write(
      'cast.ts',
      'const x = 1 as unknown as string;\nconst y = 2 as number;\nexport { x, y };\n',
    );
    expect(doubleCasts(file)).toEqual([{ file, line: 1, text: '1 as unknown as string' }]);
  });
});
