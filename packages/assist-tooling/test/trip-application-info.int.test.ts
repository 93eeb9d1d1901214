import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyFixture, mcpPool } from './helpers.js';

const pool = mcpPool();
afterAll(pool.closeAll);

const DIRECT = { express: '4.21.2', '@prisma/client': '4.16.2', jest: '29.7.0', nx: '19.8.4' };

/** An app shaped like a real Express + Prisma + Jest + Nx API: four direct dependencies, ~700 installed. */
function bigApp(): string {
  const root = copyFixture('search-app');
  rmSync(join(root, 'node_modules'), { recursive: true });
  const deps = Object.fromEntries(Object.entries(DIRECT).map(([name, version]) => [name, `^${version}`]));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'big-api', dependencies: deps }));
  const install = (name: string, version: string) => {
    mkdirSync(join(root, 'node_modules', name), { recursive: true });
    writeFileSync(join(root, 'node_modules', name, 'package.json'), JSON.stringify({ name, version }));
  };
  for (const [name, version] of Object.entries(DIRECT)) install(name, version);
  for (let i = 0; i < 700; i++) install(`@babel/transitive-helper-package-${i}`, `7.${i}.0`);
  return root;
}

describe('application-info in an app with ~700 installed packages', () => {
  it('lists the direct dependencies by default, as valid JSON', async () => {
    const mcp = await pool.start(bigApp());
    const { text, isError } = await mcp.call('application-info');
    expect(isError, text).toBe(false);
    const info = JSON.parse(text);
    expect(info.packages.map((pkg: { name: string }) => pkg.name).sort()).toEqual(Object.keys(DIRECT).sort());
    expect(info.frameworks).toEqual({ express: '4.21.2' });
    expect(info.databases.packages).toEqual({ '@prisma/client': '4.16.2' });
    expect(text.length).toBeLessThan(2_000);
  });

  it('cuts the list, not the JSON, when every package is asked for', async () => {
    const mcp = await pool.start(bigApp());
    const { text, isError } = await mcp.call('application-info', { dependencies: 'all' });
    expect(isError, text).toBe(false);
    expect(text.length).toBeLessThanOrEqual(20_000);
    const info = JSON.parse(text);
    expect(info.truncated.packages.total).toBe(704);
    expect(info.truncated.packages.shown).toBe(info.packages.length);
    expect(info.packages.length).toBeGreaterThan(100);
    expect(info.packages.length).toBeLessThan(704);
    // Everything but the list is whole.
    expect(info).toMatchObject({ name: 'big-api', packageManager: 'npm', module: 'commonjs' });
  });
});
