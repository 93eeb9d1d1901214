import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../load-config.js';

function withFile(config: object): string {
  const cwd = mkdtempSync(join(tmpdir(), 'herald-console-config-'));
  writeFileSync(join(cwd, 'realtime.config.json'), JSON.stringify(config));
  return cwd;
}

const APP = { id: 'a', key: 'k', secret: 's' };

describe('the console key', () => {
  it('is on with embedded defaults, with a token made for the run', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'herald-console-none-'));
    const first = await loadConfig({ cwd, env: {} });
    const second = await loadConfig({ cwd, env: {} });
    if (!first.ok || !second.ok) throw new Error('embedded defaults did not load');
    expect(first.config.console.enabled).toBe(true);
    expect(first.config.console.token?.length).toBeGreaterThanOrEqual(16);
    expect(second.config.console.token).not.toBe(first.config.console.token);
  });

  it('is off with a config file that does not turn it on', async () => {
    const loaded = await loadConfig({ cwd: withFile({ applications: [APP] }), env: {} });
    expect(loaded.ok && loaded.config.console).toMatchObject({ enabled: false });
  });

  it('is turned on by REALTIME_CONSOLE_TOKEN unless the file turns it off', async () => {
    const token = 'from-the-environment-0123';
    const on = await loadConfig({
      cwd: withFile({ applications: [APP] }),
      env: { REALTIME_CONSOLE_TOKEN: token },
    });
    expect(on.ok && on.config.console).toMatchObject({ enabled: true, token });
    const off = await loadConfig({
      cwd: withFile({ applications: [APP], console: { enabled: false } }),
      env: { REALTIME_CONSOLE_TOKEN: token },
    });
    expect(off.ok && off.config.console.enabled).toBe(false);
  });

  it('names the key path of a missing or short token', async () => {
    const missing = await loadConfig({
      cwd: withFile({ applications: [APP], console: { enabled: true } }),
      env: {},
    });
    expect(missing.ok ? [] : missing.problems).toEqual([
      expect.stringMatching(/^console\.token: is required/),
    ]);
    const short = await loadConfig({
      cwd: withFile({ applications: [APP], console: { enabled: true, token: 'short' } }),
      env: {},
    });
    expect(short.ok ? [] : short.problems).toEqual([
      expect.stringMatching(/^console\.token: must be at least 16/),
    ]);
    const unknown = await loadConfig({
      cwd: withFile({ applications: [APP], console: { enabled: true, token: 'x'.repeat(16), tokn: 1 } }),
      env: {},
    });
    expect(unknown.ok ? [] : unknown.problems.join('\n')).toContain('console');
  });
});
