import { describe, expect, it } from 'vitest';
import { toApiApp, toRealtimeApp } from './app-options.js';
import { servedAppOf } from './app-source.js';
import { configSchema, formatIssues } from './config-schema.js';

describe('servedAppOf', () => {
  it('gives a stored app the same defaults as a config file entry', () => {
    const fromFile = configSchema.parse({ applications: [{ id: 'a', key: 'k', secret: 's' }] })
      .applications[0];
    expect(servedAppOf({ id: 'a', key: 'k', secret: 's' })).toEqual({ ok: true, app: fromFile });
  });

  it('carries previous secrets to the server and the REST API', () => {
    const previous = [{ secret: 'old', until: Date.now() + 60_000 }];
    const served = servedAppOf({ id: 'a', key: 'k', secret: 'new', previous_secrets: previous });
    if (!served.ok) throw new Error(served.problems.join('; '));
    const limits = configSchema.parse({ applications: [{ id: 'a', key: 'k', secret: 's' }] }).rate_limiter;
    expect(toRealtimeApp(served.app, limits).previousSecrets).toEqual(previous);
    expect(toApiApp(served.app).previousSecrets).toEqual(previous);
  });

  it('names the key of a value the config schema refuses', () => {
    expect(servedAppOf({ id: 'a', key: 'k', secret: 's', ping_interval: -1 })).toEqual({
      ok: false,
      problems: ['ping_interval: Too small: expected number to be >0'],
    });
  });
});

describe('app_store config', () => {
  const problems = (input: unknown) => {
    const parsed = configSchema.safeParse(input);
    return parsed.success ? [] : formatIssues(parsed.error.issues);
  };

  it('needs a URL for the postgres driver, and no applications then', () => {
    expect(problems({ app_store: { driver: 'postgres' } })).toEqual([
      'app_store.postgres.url: is required when driver is "postgres" (or set REALTIME_APP_STORE_URL)',
    ]);
    expect(
      problems({ app_store: { driver: 'postgres', postgres: { url: 'postgres://db/herald' } } }),
    ).toEqual([]);
  });

  it('still needs an application with the config driver, and plain identifiers for schema and table', () => {
    expect(problems({})).toEqual([
      'applications: at least one application is required (or set app_store.driver to "postgres")',
    ]);
    expect(
      problems({
        app_store: { driver: 'postgres', postgres: { url: 'postgres://db/h', table: 'apps; drop' } },
      }),
    ).toEqual(['app_store.postgres.table: must be a plain identifier (letters, digits, _)']);
  });
});
