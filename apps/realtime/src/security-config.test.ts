import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { metricsLine, secretsLine } from './banner.js';
import { configSchema, formatIssues } from './config-schema.js';
import { loadConfig } from './load-config.js';

// The keys of issue 27's secrets part: the app store's keys (environment only) and the metrics block.
const cwd = mkdtempSync(join(tmpdir(), 'herald-security-config-'));
const load = (env: NodeJS.ProcessEnv) => loadConfig({ cwd, env });
const problemsOf = (input: unknown) => {
  const parsed = configSchema.safeParse(input);
  return parsed.success ? [] : formatIssues(parsed.error.issues);
};

describe('REALTIME_APP_STORE_KEY and REALTIME_APP_STORE_NEW_KEY', () => {
  it('take 64 hex characters or base64 of 32 bytes', async () => {
    const key = randomBytes(32);
    const newKey = randomBytes(32);
    const loaded = await load({
      REALTIME_APP_STORE_KEY: key.toString('hex'),
      REALTIME_APP_STORE_NEW_KEY: newKey.toString('base64'),
    });
    expect(loaded).toMatchObject({ ok: true, storeKeys: { key, newKey } });
    expect(await load({})).toMatchObject({ ok: true, storeKeys: {} });
  });

  it('refuse anything else, naming the variable and never repeating the value', async () => {
    const short = randomBytes(16).toString('hex');
    const loaded = await load({ REALTIME_APP_STORE_KEY: short, REALTIME_APP_STORE_NEW_KEY: 'my-passphrase' });
    expect(loaded.ok).toBe(false);
    if (loaded.ok) return;
    expect(loaded.problems).toEqual([
      expect.stringMatching(
        /^REALTIME_APP_STORE_KEY: must be 32 bytes written as 64 hex characters or as base64/,
      ),
      expect.stringMatching(/^REALTIME_APP_STORE_NEW_KEY: must be 32 bytes/),
    ]);
    expect(loaded.problems.join('\n')).not.toContain(short);
    expect(loaded.problems.join('\n')).not.toContain('my-passphrase');
  });
});

describe('metrics', () => {
  it('defaults to no token, no port of its own, and 127.0.0.1 for one', () => {
    expect(configSchema.parse({ applications: [{ id: 'a', key: 'k', secret: 's' }] }).metrics).toEqual({
      host: '127.0.0.1',
    });
  });

  it('is validated with its key paths', () => {
    const app = { id: 'a', key: 'k', secret: 's' };
    expect(problemsOf({ applications: [app], metrics: { auth_token: 'short' } })).toEqual([
      'metrics.auth_token: must be at least 16 characters (make one with `openssl rand -hex 32`)',
    ]);
    expect(problemsOf({ applications: [app], metrics: { port: 70_000 } })).toEqual([
      expect.stringMatching(/^metrics\.port: /),
    ]);
    expect(problemsOf({ applications: [app], metrics: { host: '' } })).toEqual([
      expect.stringMatching(/^metrics\.host: /),
    ]);
    expect(problemsOf({ applications: [app], metrics: { token: 'x'.repeat(20) } })).toEqual([
      expect.stringMatching(/^metrics: .*token/),
    ]);
  });

  it('takes REALTIME_METRICS_TOKEN and REALTIME_METRICS_PORT over the file, checked as metrics.*', async () => {
    const loaded = await load({ REALTIME_METRICS_TOKEN: 't'.repeat(32), REALTIME_METRICS_PORT: '9464' });
    expect(loaded).toMatchObject({
      ok: true,
      config: { metrics: { auth_token: 't'.repeat(32), port: 9464 } },
    });
    expect(await load({ REALTIME_METRICS_TOKEN: 'short' })).toMatchObject({
      ok: false,
      problems: [expect.stringMatching(/^metrics\.auth_token: must be at least 16 characters/)],
    });
  });
});

describe('metricsLine', () => {
  const config = (metrics: object) =>
    configSchema.parse({ applications: [{ id: 'a', key: 'k', secret: 's' }], metrics });

  it('says where /metrics is and whether it needs a token, never the token', () => {
    const token = 'banner-token-0123456789';
    expect(metricsLine(config({ port: 9464, auth_token: token }), 9464, 8080)).toBe(
      'Metrics: http://127.0.0.1:9464/metrics (bearer token required)',
    );
    expect(metricsLine(config({ auth_token: token }), undefined, 8080)).toBe(
      'Metrics: /metrics on port 8080 (bearer token required)',
    );
    expect(metricsLine(config({}), undefined, 8080)).toContain('open to anyone who reaches it');
  });
});

describe('secretsLine', () => {
  it('says whether the store encrypts secrets, naming only the key id', () => {
    expect(secretsLine('0123456789ab')).toBe('Secrets: encrypted at rest (AES-256-GCM, key id 0123456789ab)');
    expect(secretsLine(undefined)).toContain('set REALTIME_APP_STORE_KEY to encrypt them at rest');
  });
});
