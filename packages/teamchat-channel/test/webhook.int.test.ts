import { inspect } from 'node:util';
import { createNotifier, type Notifiable } from '@herald/notifications';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  CouldNotSendNotification,
  createTeamChatChannel,
  type TeamChatChannel,
  type TeamChatContent,
  TeamChatMessage,
  type TeamChatNotification,
} from '../src/index.js';
import { rejection } from './helpers.js';
import { type RocketChatDouble, startRocketChatDouble } from './rocketchat-double.js';

// Tests against a loopback double of Rocket.Chat's webhook endpoint (see rocketchat-double.ts for its rules).
const TOKEN = 'tOk3n/with+odd=chars';
let chat: RocketChatDouble;
const opened: TeamChatChannel[] = [];

function channel(hookId: string, extra: Record<string, unknown> = {}, name = 'teamchat'): TeamChatChannel {
  const created = createTeamChatChannel({ name, config: { webhook: chat.hookUrl(hookId), ...extra } });
  opened.push(created);
  return created;
}

class Deployed implements TeamChatNotification {
  constructor(private readonly content: TeamChatContent = 'Deploy finished') {}
  via() {
    return ['teamchat'];
  }
  toTeamChat() {
    return this.content;
  }
}

beforeAll(async () => {
  chat = await startRocketChatDouble([
    { id: 'open', token: TOKEN, overrideDestinationChannel: true },
    { id: 'fixed', token: TOKEN },
    { id: 'off', token: TOKEN, enabled: false },
    { id: 'busy', token: TOKEN, rateLimit: { limit: 1, windowMs: 400 } },
  ]);
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
  chat.reset();
});
afterAll(() => chat.close());

describe('posting to a Rocket.Chat incoming webhook', () => {
  it('sends the exact body the builder describes, as JSON with the extra headers', async () => {
    const teamchat = channel('fixed', { headers: { 'x-trace': 'abc' } });
    const message = TeamChatMessage.create()
      .text('Deploy *812* finished')
      .username('deploy-bot')
      .emoji(':rocket:')
      .attachment((a) =>
        a
          .title('Build 812', 'https://ci.example.com/812')
          .text('All green')
          .color('good')
          .field('Took', '3m', true)
          .field('Tests', 1204)
          .thumb('https://ci.example.com/t.png')
          .image('https://ci.example.com/i.png')
          .author('CI', 'https://ci.example.com', 'https://ci.example.com/ci.png')
          .timestamp(1_700_000_000),
      )
      .attachment({ text: 'second', color: 'danger', ts: new Date('2024-05-01T10:00:00Z') });

    const response = await teamchat.post(message);

    expect(response).toMatchObject({ status: 200, body: { success: true } });
    expect(chat.received).toHaveLength(1);
    expect(chat.received[0]?.body).toEqual({
      text: 'Deploy *812* finished',
      username: 'deploy-bot',
      emoji: ':rocket:',
      attachments: [
        {
          title: 'Build 812',
          title_link: 'https://ci.example.com/812',
          text: 'All green',
          color: '#2eb886',
          fields: [
            { title: 'Took', value: '3m', short: true },
            { title: 'Tests', value: '1204', short: false },
          ],
          thumb_url: 'https://ci.example.com/t.png',
          image_url: 'https://ci.example.com/i.png',
          author_name: 'CI',
          author_link: 'https://ci.example.com',
          author_icon: 'https://ci.example.com/ci.png',
          ts: '2023-11-14T22:13:20.000Z',
        },
        { text: 'second', color: '#a30200', ts: '2024-05-01T10:00:00.000Z' },
      ],
    });
    const headers = chat.received[0]?.headers;
    expect(headers?.['content-type']).toBe('application/json');
    expect(headers?.['x-trace']).toBe('abc');
  });

  it('sends a string from toTeamChat() as text, and no channel when the notifiable has no route', async () => {
    const notifier = createNotifier({ channels: { teamchat: channel('fixed') } });
    const report = await notifier.notifiable({ type: 'User', id: 1 }).notify(new Deployed('Plain words'));
    expect(report).toMatchObject({ ok: true, delivered: { teamchat: 1 } });
    expect(chat.received.map((p) => p.body)).toEqual([{ text: 'Plain words' }]);
  });

  it('sends the route from routeNotificationForTeamchat() as channel', async () => {
    const notifier = createNotifier({ channels: { teamchat: channel('open') } });
    const user = { type: 'User', id: 2, routeNotificationForTeamchat: () => '@alice' };
    const report = await notifier.notifiable(user).notify(new Deployed());
    expect(report.ok).toBe(true);
    expect(chat.received.map((p) => p.body)).toEqual([{ text: 'Deploy finished', channel: '@alice' }]);
  });

  it('sends an on-demand route as channel', async () => {
    const notifier = createNotifier({ channels: { teamchat: channel('open') } });
    const report = await notifier.route('teamchat', '#ops').notify(new Deployed());
    expect(report.ok).toBe(true);
    expect(chat.received.map((p) => p.body)).toEqual([{ text: 'Deploy finished', channel: '#ops' }]);
  });

  it('sends a digest as one message: a heading, each text in turn, then every attachment', async () => {
    const teamchat = channel('open');
    const bob = { type: 'User', id: 4, routeNotificationForTeamchat: () => '@bob' };
    const delivery = (id: string, content: TeamChatContent) => ({
      id,
      notifiable: bob,
      notification: new Deployed(content),
      type: 'Deployed',
      createdAt: new Date(),
      anonymous: false,
    });
    await teamchat.sendDigest?.([
      delivery('a', 'api deployed'),
      delivery(
        'b',
        TeamChatMessage.create('web deployed').attachment((a) => a.title('v2').color('good')),
      ),
      delivery('c', null),
      delivery('d', { text: 'docs deployed' }),
    ]);
    expect(chat.received).toHaveLength(1);
    expect(chat.received[0]?.body).toMatchObject({
      text: '*3 new notifications*\n\napi deployed\n\nweb deployed\n\ndocs deployed',
      attachments: [{ title: 'v2' }],
      channel: '@bob',
    });
  });

  it('sends nothing and reports no error when toTeamChat() returns null', async () => {
    const notifier = createNotifier({ channels: { teamchat: channel('fixed') } });
    const report = await notifier.notifiable({ type: 'User', id: 3 }).notify(new Deployed(null));
    expect(report.ok).toBe(true);
    expect(chat.attempts).toEqual([]);
  });

  it('reports a notification without toTeamChat() as a failure of that channel', async () => {
    const notifier = createNotifier({ channels: { teamchat: channel('fixed') } });
    const report = await notifier.notifiable({ type: 'User', id: 3 }).notify({ via: () => ['teamchat'] });
    expect(report.ok).toBe(false);
    const cause = report.failures[0]?.error.cause;
    expect(cause).toBeInstanceOf(CouldNotSendNotification);
    expect(cause).toMatchObject({ code: 'missing_builder', channel: 'teamchat' });
  });

  it('refuses a route that is neither #channel nor @user, before sending', async () => {
    const user: Notifiable & { routeNotificationForTeamchat(): string } = {
      type: 'User',
      id: 4,
      routeNotificationForTeamchat: () => 'ops',
    };
    const notifier = createNotifier({ channels: { teamchat: channel('open') } });
    const report = await notifier.notifiable(user).notify(new Deployed());
    expect(report.failures[0]?.error.cause).toMatchObject({ code: 'invalid_route' });
    expect(chat.attempts).toEqual([]);
  });

  it('refuses a relative URL before sending, naming the key', async () => {
    const error = await rejection(
      channel('fixed').post(TeamChatMessage.create('x').attachment((a) => a.image('/logo.png'))),
    );
    expect(error.code).toBe('invalid_message');
    expect(error.message).toContain(
      'attachments[0].image_url: must be an absolute http(s) URL, got "/logo.png"',
    );
    expect(chat.attempts).toEqual([]);
  });
});

describe('Rocket.Chat refusing a post', () => {
  it('raises CouldNotSendNotification with the 400 when the hook does not allow a channel override', async () => {
    const error = await rejection(channel('fixed').post('hi', { channel: '#ops' }));
    expect(error).toMatchObject({
      code: 'http_error',
      channel: 'teamchat',
      response: {
        status: 400,
        body: { success: false, error: 'overriding destination channel is disabled for this integration' },
      },
    });
    expect(error.message).toBe(
      'teamchat: Rocket.Chat answered 400: overriding destination channel is disabled for this integration',
    );
  });

  it('raises the 400 for a room that does not exist or that the bot may not post in', async () => {
    const teamchat = channel('open');
    expect((await rejection(teamchat.post('hi', { channel: '#nowhere' }))).response?.body).toEqual({
      success: false,
      error: 'invalid-channel',
    });
    expect((await rejection(teamchat.post('hi', { channel: '#secret' }))).response?.body).toEqual({
      success: false,
      error: 'error-not-allowed',
    });
  });

  it('raises the 400 for an attachment Rocket.Chat refuses that local validation lets through', async () => {
    const error = await rejection(
      channel('fixed').post({ text: 'x', attachments: [{ title: 't', collapsed: 'yes' } as never] }),
    );
    expect(error.response).toMatchObject({ status: 400, body: { success: false } });
  });

  it('raises the 404 for an unknown hook without revealing the hook id or token', async () => {
    const logged: unknown[] = [];
    const log = (message: string, fields?: unknown) => logged.push(JSON.stringify(fields), message);
    const teamchat = createTeamChatChannel({
      name: 'teamchat-alerts',
      config: { webhook: `${chat.url}/hooks/open/wrong-${TOKEN}` },
      logger: { debug: log, info: log, warn: log, error: log },
    });
    opened.push(teamchat);
    const error = await rejection(teamchat.post('hi'));
    expect(error).toMatchObject({
      code: 'http_error',
      channel: 'teamchat-alerts',
      response: { status: 404, body: { success: false, error: 'Invalid integration id or token provided.' } },
    });
    expect(logged.length).toBeGreaterThan(0);
    for (const text of [error.message, inspect(error, { depth: 5 }), JSON.stringify(error), logged.join()]) {
      expect(text).not.toContain('wrong-');
      expect(text).not.toContain('/hooks/open');
    }
  });

  it('raises the 503 of a disabled hook', async () => {
    const error = await rejection(channel('off').post('hi'));
    expect(error.response).toMatchObject({ status: 503, body: { error: 'Service Unavailable' } });
  });

  it('returns a non-2xx instead of throwing when http_errors is false, and logs it without the webhook', async () => {
    const logged: [Readonly<Record<string, unknown>> | undefined, string][] = [];
    const teamchat = createTeamChatChannel({
      config: { webhook: chat.hookUrl('off'), http_errors: false },
      logger: {
        debug() {},
        info() {},
        warn: (message, fields) => logged.push([fields, message]),
        error() {},
      },
    });
    opened.push(teamchat);
    const response = await teamchat.post('hi');
    expect(response).toMatchObject({ status: 503, body: { success: false, error: 'Service Unavailable' } });

    const notifier = createNotifier({ channels: { teamchat } });
    const report = await notifier.notifiable({ type: 'User', id: 5 }).notify(new Deployed());
    expect(report).toMatchObject({ ok: true, delivered: { teamchat: 1 } });
    expect(logged.map(([fields]) => fields?.status)).toEqual([503, 503]);
    expect(JSON.stringify(logged)).not.toContain('/hooks/off');
  });
});

describe('rate limiting', () => {
  it('raises the 429 with how long to wait when no retries are asked for', async () => {
    const teamchat = channel('busy');
    await teamchat.post('first');
    const error = await rejection(teamchat.post('second'));
    expect(error.response?.status).toBe(429);
    expect(error.response?.headers['x-ratelimit-limit']).toBe('1');
    expect(error.retryAfterMs).toBeGreaterThan(0);
    expect(error.retryAfterMs).toBeLessThanOrEqual(400);
  });

  it('waits until X-RateLimit-Reset and posts again when retries are asked for', async () => {
    const teamchat = channel('busy', { retries: 2 });
    await teamchat.post('first');
    const response = await teamchat.post('second');
    expect(response.status).toBe(200);
    const statuses = chat.attempts.map((a) => a.status);
    // Timers may fire a millisecond early, which can cost one more 429 inside the retry budget.
    expect(statuses.slice(0, 2)).toEqual([200, 429]);
    expect(statuses.at(-1)).toBe(200);
    expect(statuses.length).toBeLessThanOrEqual(4);
    // The double's window is 400 ms from the first post; the accepted retry must come after it reset.
    expect((chat.attempts.at(-1)?.at ?? 0) - (chat.attempts[0]?.at ?? 0)).toBeGreaterThanOrEqual(390);
    expect(chat.received.map((p) => p.body)).toEqual([{ text: 'first' }, { text: 'second' }]);
  });

  it('gives up at once when the wait is longer than retry_max_wait', async () => {
    const teamchat = channel('busy', { retries: 3, retry_max_wait: 0.05 });
    await teamchat.post('first');
    const error = await rejection(teamchat.post('second'));
    expect(error.response?.status).toBe(429);
    expect(chat.attempts.map((a) => a.status)).toEqual([200, 429]);
  });
});
