// The import scan the tarball check relies on to find packages missing from `dependencies`.
import { describe, expect, it } from 'vitest';
import { importedSpecifiers, packageNameOf } from './consumer.js';

describe('importedSpecifiers', () => {
  it('finds static, re-exported, dynamic and required modules', () => {
    const code = [
      "import { a } from 'alpha';",
      "import '@scope/side-effect/register.js';",
      "export { b } from './local.js';",
      "const c = await import('gamma/sub');",
      "const d = require('delta');",
      "import type { E } from 'epsilon';",
    ].join('\n');
    expect(importedSpecifiers(code).sort()).toEqual(
      ['./local.js', '@scope/side-effect/register.js', 'alpha', 'delta', 'epsilon', 'gamma/sub'].sort(),
    );
  });
});

describe('packageNameOf', () => {
  it('names the package of a bare specifier, scoped or not, and nothing for builtins or relative paths', () => {
    expect(packageNameOf('@scope/name/deep/file.js')).toBe('@scope/name');
    expect(packageNameOf('undici/lib/x')).toBe('undici');
    expect(packageNameOf('node:fs')).toBeUndefined();
    expect(packageNameOf('fs/promises')).toBeUndefined();
    expect(packageNameOf('./local.js')).toBeUndefined();
    expect(packageNameOf('#internal')).toBeUndefined();
  });
});
