import { describe, expect, it } from 'vitest';
import { parseWebhookList, parseWebhooksEnv, webhookListSchema, webhookSettingsSchema } from './config.js';
import { dispatcherSettingsFromConfig } from './options-from-config.js';

const soketiStyle = [
  {
    url: 'https://example.com/pusher/webhooks',
    event_types: ['channel_occupied', 'channel_vacated'],
    filter: { channel_name_starts_with: 'private-', channel_name_ends_with: '-orders' },
    headers: { Authorization: 'Bearer abc' },
  },
  { url: 'http://127.0.0.1:3000/hook', event_types: ['client_event'] },
];

const problems = (value: unknown) => {
  const result = webhookListSchema.safeParse(value);
  return result.success
    ? []
    : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

describe('webhookListSchema', () => {
  it('accepts the webhook list soketi users write', () => {
    expect(webhookListSchema.parse(soketiStyle)).toEqual(soketiStyle);
  });

  it('names the key path of a bad URL', () => {
    expect(problems([{ url: 'not a url', event_types: ['channel_occupied'] }])).toEqual([
      '0.url: must be an http:// or https:// URL',
    ]);
    expect(problems([soketiStyle[0], { url: 'ftp://example.com/x', event_types: ['cache_miss'] }])).toEqual([
      '1.url: must be an http:// or https:// URL',
    ]);
  });

  it('names the key path of an unknown event type and lists the known ones', () => {
    const lines = problems([
      { url: 'https://example.com/', event_types: ['channel_occupied', 'member_joined'] },
    ]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^0\.event_types\.1: unknown event type "member_joined" \(expected one of channel_occupied,/,
    );
  });

  it('refuses an empty event list, a misspelt filter key and headers that would replace the signature', () => {
    expect(problems([{ url: 'https://example.com/', event_types: [] }])).toEqual([
      '0.event_types: must list at least one event type',
    ]);
    expect(
      problems([
        {
          url: 'https://example.com/',
          event_types: ['cache_miss'],
          filter: { channel_name_start_with: 'x' },
        },
      ]),
    ).toEqual([expect.stringMatching(/^0\.filter: .*channel_name_start_with/)]);
    expect(
      problems([
        {
          url: 'https://example.com/',
          event_types: ['cache_miss'],
          headers: { 'x-pusher-signature': 'forged', 'Content-Type': 'text/plain', 'bad header': 'x' },
        },
      ]),
    ).toEqual([
      '0.headers.x-pusher-signature: is set by the server and cannot be overridden',
      '0.headers.Content-Type: is set by the server and cannot be overridden',
      '0.headers.bad header: is not a valid HTTP header name',
    ]);
  });
});

describe('parseWebhookList', () => {
  it('reads a JSON list and names the variable in every problem', () => {
    expect(parseWebhookList(JSON.stringify(soketiStyle), 'HOOKS')).toEqual({ ok: true, value: soketiStyle });
    expect(parseWebhookList('[{"url":"nope","event_types":["x"]}]', 'HOOKS')).toEqual({
      ok: false,
      error: [
        'HOOKS.0.url: must be an http:// or https:// URL',
        expect.stringMatching(/^HOOKS\.0\.event_types\.0: unknown event type "x"/),
      ],
    });
    expect(parseWebhookList('[{', 'HOOKS')).toEqual({
      ok: false,
      error: [expect.stringMatching(/^HOOKS: is not valid JSON/)],
    });
  });
});

describe('parseWebhooksEnv', () => {
  it('reads REALTIME_APP_WEBHOOKS for the env-configured app and REALTIME_WEBHOOKS by app id', () => {
    const result = parseWebhooksEnv({
      REALTIME_APP_WEBHOOKS: JSON.stringify([soketiStyle[1]]),
      REALTIME_WEBHOOKS: JSON.stringify({ 'app-2': [soketiStyle[0]] }),
      UNRELATED: 'x',
    });
    expect(result).toEqual({
      ok: true,
      value: { app: [soketiStyle[1]], byApp: { 'app-2': [soketiStyle[0]] } },
    });
  });

  it('answers nothing configured when neither variable is set', () => {
    expect(parseWebhooksEnv({})).toEqual({ ok: true, value: { byApp: {} } });
  });

  it('reports every problem of both variables with its path', () => {
    const result = parseWebhooksEnv({
      REALTIME_APP_WEBHOOKS: '{"url":"https://example.com"}',
      REALTIME_WEBHOOKS: '{"app-2":[{"url":"https://example.com","event_types":["member_add"]}]}',
    });
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.error).toEqual([
      expect.stringMatching(/^REALTIME_APP_WEBHOOKS: /),
      expect.stringMatching(/^REALTIME_WEBHOOKS\.app-2\.0\.event_types\.0: unknown event type "member_add"/),
    ]);
  });
});

describe('webhookSettingsSchema', () => {
  it('fills every default, about five minutes of retries as the hosted service does', () => {
    const settings = webhookSettingsSchema.parse({});
    expect(dispatcherSettingsFromConfig(settings)).toEqual({
      batching: { enabled: true, windowMs: 50, maxEvents: 100 },
      retry: { maxElapsedMs: 300_000, baseMs: 1000, maxMs: 60_000 },
      requestTimeoutMs: 10_000,
      maxQueuedPerApp: 10_000,
      concurrency: 32,
    });
    expect(settings.queue_lease_ms).toBe(30_000);
  });

  it('refuses a request timeout that is not below the queue lease, naming the key', () => {
    const result = webhookSettingsSchema.safeParse({ request_timeout_ms: 5000, queue_lease_ms: 5000 });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['request_timeout_ms']);
    expect(result.error?.issues[0]?.message).toContain('queue_lease_ms');
  });
});
