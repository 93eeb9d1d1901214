import { describe, expect, it } from 'vitest';
import { bunLockVersions, npmLockVersions, pnpmLockVersions, yarnLockVersions } from './lockfile.js';

describe('lockfile versions', () => {
  it('reads top-level packages of package-lock.json', () => {
    const text = JSON.stringify({
      packages: {
        '': {},
        'node_modules/hono': { version: '4.6.20' },
        'node_modules/@scope/a/node_modules/b': { version: '1.0.0' },
      },
    });
    expect([...npmLockVersions(text)]).toEqual([['hono', '4.6.20']]);
  });

  it('reads the root importer of pnpm-lock.yaml without peer suffixes', () => {
    const text = `lockfileVersion: '9.0'\nimporters:\n  .:\n    dependencies:\n      hono:\n        specifier: ^4.6.0\n        version: 4.6.20\n      '@hono/zod-validator':\n        specifier: ^0.4.0\n        version: 0.4.3(hono@4.6.20)(zod@3.24.1)\n`;
    expect(Object.fromEntries(pnpmLockVersions(text))).toEqual({
      hono: '4.6.20',
      '@hono/zod-validator': '0.4.3',
    });
  });

  it('reads classic and Berry yarn.lock entries', () => {
    const classic = `"@types/node@^20.0.0":\n  version "20.19.1"\n  resolved "x"\n\nhono@^4.0.0, hono@^4.6.0:\n  version "4.6.20"\n`;
    expect(Object.fromEntries(yarnLockVersions(classic))).toEqual({
      '@types/node': '20.19.1',
      hono: '4.6.20',
    });
    const berry = `"hono@npm:^4.6.0":\n  version: 4.6.20\n  resolution: "hono@npm:4.6.20"\n`;
    expect(Object.fromEntries(yarnLockVersions(berry))).toEqual({ hono: '4.6.20' });
  });

  it('reads bun.lock', () => {
    const text = `{ "lockfileVersion": 1, "packages": { "hono": ["hono@4.6.20", "", {}, "sha512-x"], }, }`;
    expect(Object.fromEntries(bunLockVersions(text))).toEqual({ hono: '4.6.20' });
  });
});
