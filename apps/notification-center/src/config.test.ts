import { describe, expect, it } from 'vitest';
import { configFromEnv, DEMO_SESSION_SECRET } from './config.js';

describe('configFromEnv', () => {
  it('runs with the embedded defaults when nothing is set', () => {
    expect(configFromEnv({})).toEqual({
      ok: true,
      config: {
        host: '127.0.0.1',
        port: 8090,
        database: { dataDir: './data/notifications' },
        realtime: undefined,
        teamChatWebhooks: {},
        sessionSecret: DEMO_SESSION_SECRET,
        apiSecret: undefined,
        bellAssetsDir: undefined,
        corsOrigins: [],
        userTokens: {
          secret: expect.stringMatching(/^[0-9a-f]{64}$/),
          publicKey: undefined,
          audience: 'herald-notifications',
          issuer: undefined,
          clockToleranceSeconds: 30,
        },
      },
    });
  });

  it('uses PostgreSQL, the real-time server and team-chat webhooks when given', () => {
    const result = configFromEnv({
      DATABASE_URL: 'postgres://u@db:5432/app',
      REALTIME_URL: 'http://rt:8080',
      REALTIME_APP_ID: 'app',
      REALTIME_APP_KEY: 'key',
      REALTIME_APP_SECRET: 'secret',
      TEAMCHAT_WEBHOOKS: '{"teamchat":"https://chat.example/hooks/a/b"}',
      NOTIFICATION_CENTER_PORT: '0',
    });
    expect(result.ok && result.config).toMatchObject({
      port: 0,
      database: { url: 'postgres://u@db:5432/app', schema: 'public' },
      realtime: { url: 'http://rt:8080', appId: 'app', key: 'key', secret: 'secret' },
      teamChatWebhooks: { teamchat: 'https://chat.example/hooks/a/b' },
    });
  });

  it.each([
    [
      { NOTIFICATION_CENTER_PORT: '70000', TEAMCHAT_WEBHOOKS: '[1]' },
      ['NOTIFICATION_CENTER_PORT', 'TEAMCHAT_WEBHOOKS'],
    ],
    [{ REALTIME_URL: 'http://rt:8080', NODE_ENV: 'production' }, ['REALTIME_URL', 'SESSION_SECRET']],
    [
      {
        NOTIFICATION_CORS_ORIGINS: 'https://ok.example, https://bad.example/path',
        NOTIFICATION_USER_TOKEN_SECRET: 'short',
        NOTIFICATION_API_SECRET: 'short',
      },
      ['NOTIFICATION_API_SECRET', 'NOTIFICATION_CORS_ORIGINS', 'NOTIFICATION_USER_TOKEN_SECRET'],
    ],
  ])('names every variable at fault in %j', (env, names) => {
    const result = configFromEnv(env);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems.map((p) => p.split(':')[0]).sort()).toEqual(names);
  });

  it('reads the allowed CORS origins as a list', () => {
    const result = configFromEnv({ NOTIFICATION_CORS_ORIGINS: 'https://app.example, http://127.0.0.1:5173' });
    expect(result.ok && result.config.corsOrigins).toEqual(['https://app.example', 'http://127.0.0.1:5173']);
  });
});
