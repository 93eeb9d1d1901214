import { describe, expect, it } from 'vitest';
import { toRealtimeApp } from './app-options.js';
import { configSchema, formatIssues } from './config-schema.js';

const app = { id: 'a', key: 'k', secret: 's' };

describe('toRealtimeApp', () => {
  it('leaves socket limits off while the rate limiter is off', () => {
    const config = configSchema.parse({ applications: [app] });
    const mapped = toRealtimeApp(config.applications[0]!, config.rate_limiter);
    expect(mapped.maxClientEventsPerSecond).toBeUndefined();
    expect(mapped.maxMessagesPerSecond).toBeUndefined();
  });

  it('takes the default client-event and frame limits from rate_limiter when enabled', () => {
    const config = configSchema.parse({
      applications: [app],
      rate_limiter: {
        enabled: true,
        connection: { enabled: true, max_messages_per_second: 30, terminate_on_limit: true },
      },
    });
    const mapped = toRealtimeApp(config.applications[0]!, config.rate_limiter);
    expect(mapped).toMatchObject({
      maxClientEventsPerSecond: 10,
      maxMessagesPerSecond: 30,
      terminateOnMessageLimit: true,
    });
  });

  it('lets an application override the defaults', () => {
    const config = configSchema.parse({
      applications: [{ ...app, max_frontend_events_per_second: 3, max_connection_messages_per_second: 7 }],
      rate_limiter: { enabled: true },
    });
    const mapped = toRealtimeApp(config.applications[0]!, config.rate_limiter);
    expect(mapped).toMatchObject({ maxClientEventsPerSecond: 3, maxMessagesPerSecond: 7 });
  });

  it('maps history on with its defaults, and leaves it off when absent or disabled', () => {
    const config = configSchema.parse({
      applications: [
        { ...app, history: { enabled: true } },
        { ...app, id: 'b', key: 'kb' },
        { ...app, id: 'c', key: 'kc', history: { enabled: false, max_events_per_channel: 5 } },
      ],
    });
    const [on, absent, off] = config.applications.map((each) => toRealtimeApp(each, config.rate_limiter));
    expect(on?.history).toEqual({ enabled: true, maxEventsPerChannel: 100, maxAgeSeconds: 300 });
    expect(absent?.history).toBeUndefined();
    expect(off?.history?.enabled).toBe(false);
  });

  it('names the key path of a bad history setting', () => {
    const parsed = configSchema.safeParse({
      applications: [{ ...app, history: { enabled: 'yes', max_events_per_channel: 0, keep: true } }],
    });
    const problems = parsed.success ? [] : formatIssues(parsed.error.issues).join('\n');
    expect(problems).toContain('applications.0.history.enabled');
    expect(problems).toContain('applications.0.history.max_events_per_channel');
    expect(problems).toContain('keep');
  });
});
