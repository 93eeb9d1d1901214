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
        email: undefined,
        publicUrl: 'http://127.0.0.1:8090',
        unsubscribeSecret: expect.stringMatching(/^[0-9a-f]{64}$/),
        types: {},
        push: {
          vapidKeys: undefined,
          subject: 'mailto:notifications@localhost',
          ttlSeconds: 86_400,
          caFile: undefined,
          endpoints: [
            'fcm.googleapis.com',
            'updates.push.services.mozilla.com',
            '*.push.services.mozilla.com',
            '*.push.apple.com',
            '*.notify.windows.com',
          ],
        },
        storeKey: undefined,
      },
    });
  });

  it('reads the push endpoints’ hosts and the store key, naming what is wrong without repeating a key', () => {
    const key = 'ab'.repeat(32);
    const good = configFromEnv({
      NOTIFICATION_PUSH_ENDPOINTS: ' 127.0.0.1:8443, *.push.example ',
      NOTIFICATION_STORE_KEY: key,
    });
    expect(good.ok && good.config.push.endpoints).toEqual(['127.0.0.1:8443', '*.push.example']);
    expect(good.ok && Buffer.from(good.config.storeKey ?? []).toString('hex')).toBe(key);
    const bad = configFromEnv({
      NOTIFICATION_PUSH_ENDPOINTS: 'https://push.example/x',
      NOTIFICATION_STORE_KEY: 'not-a-key-but-secret',
    });
    expect(bad.ok).toBe(false);
    const problems = bad.ok ? [] : bad.problems;
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(
      /^NOTIFICATION_PUSH_ENDPOINTS: "https:\/\/push.example\/x" is not a host pattern/,
    );
    expect(problems[1]).toMatch(/^NOTIFICATION_STORE_KEY: must be 32 bytes/);
    expect(problems[1]).not.toContain('not-a-key-but-secret');
  });

  it('reads the VAPID keys as a pair, and the subject from the mail sender unless set', () => {
    const keys = {
      NOTIFICATION_VAPID_PUBLIC_KEY: `B${'A'.repeat(86)}`,
      NOTIFICATION_VAPID_PRIVATE_KEY: 'a'.repeat(43),
    };
    const both = configFromEnv({ ...keys, NOTIFICATION_MAIL_FROM: 'Example <notify@example.com>' });
    expect(both.ok && both.config.push).toMatchObject({
      vapidKeys: {
        publicKey: keys.NOTIFICATION_VAPID_PUBLIC_KEY,
        privateKey: keys.NOTIFICATION_VAPID_PRIVATE_KEY,
      },
      subject: 'mailto:notify@example.com',
    });
    const set = configFromEnv({ NOTIFICATION_VAPID_SUBJECT: 'https://notify.example' });
    expect(set.ok && set.config.push.subject).toBe('https://notify.example');
    expect(configFromEnv({ NOTIFICATION_VAPID_PUBLIC_KEY: keys.NOTIFICATION_VAPID_PUBLIC_KEY })).toEqual({
      ok: false,
      problems: [
        'NOTIFICATION_VAPID_PUBLIC_KEY: set NOTIFICATION_VAPID_PUBLIC_KEY and NOTIFICATION_VAPID_PRIVATE_KEY together',
      ],
    });
    const bad = configFromEnv({ NOTIFICATION_VAPID_SUBJECT: 'ops@example.com', NOTIFICATION_PUSH_TTL: '-1' });
    expect(bad.ok ? [] : bad.problems.map((problem) => problem.split(':')[0])).toEqual([
      'NOTIFICATION_VAPID_SUBJECT',
      'NOTIFICATION_PUSH_TTL',
    ]);
  });

  it('reads the SMTP server, the public URL and the away settings per type', () => {
    const result = configFromEnv({
      NOTIFICATION_SMTP_URL: 'smtps://user:pass@mail.example:465',
      NOTIFICATION_MAIL_FROM: 'Example <notify@example.com>',
      NOTIFICATION_PUBLIC_URL: 'https://notify.example',
      NOTIFICATION_TYPES: '{"CommentReplied":{"away_after_seconds":60,"digest_window_seconds":300}}',
    });
    expect(result.ok && result.config).toMatchObject({
      email: { smtpUrl: 'smtps://user:pass@mail.example:465', from: 'Example <notify@example.com>' },
      publicUrl: 'https://notify.example',
      types: { CommentReplied: { away_after_seconds: 60, digest_window_seconds: 300 } },
    });
  });

  it('names the SMTP URL and the type setting at fault', () => {
    const result = configFromEnv({
      NOTIFICATION_SMTP_URL: 'http://mail.example',
      NOTIFICATION_TYPES: '{"CommentReplied":{"away_after_seconds":-1}}',
    });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problems).toEqual([
        'NOTIFICATION_SMTP_URL: must be an smtp:// or smtps:// URL',
        expect.stringMatching(/^NOTIFICATION_TYPES: CommentReplied\.away_after_seconds: /),
      ]);
    }
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
