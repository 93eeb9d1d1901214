import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createDatabaseChannel,
  createNotificationStore,
  createNotifier,
  type Notifiable,
  type NotificationStore,
} from '@herald/notifications';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  CouldNotSendNotification,
  createTeamChatChannels,
  type TeamChatChannel,
  TeamChatMessage,
  type TeamChatNotification,
} from '../src/index.js';
import { type RocketChatDouble, startRocketChatDouble } from './rocketchat-double.js';

// The sender of @herald/notifications with the database channel on PGlite and two team-chat instances
// posting to a loopback double of Rocket.Chat's webhooks (see rocketchat-double.ts).

class ServerDown implements TeamChatNotification {
  readonly type = 'ServerDown';
  via() {
    return ['database', 'teamchat', 'teamchat-alerts'];
  }
  toDatabase() {
    return { title: 'Server down', message: 'db-1 stopped answering', icon: 'alert' as const };
  }
  toTeamChat(_notifiable: Notifiable, channel: string) {
    return channel === 'teamchat-alerts'
      ? TeamChatMessage.create('db-1 is down').attachment((a) =>
          a.color('danger').field('Host', 'db-1', true),
        )
      : 'db-1 stopped answering';
  }
}

let chat: RocketChatDouble;
let dataDir: string;
let store: NotificationStore;
let channels: Record<string, TeamChatChannel> = {};

beforeAll(async () => {
  chat = await startRocketChatDouble([
    { id: 'team', token: 'team-token' },
    { id: 'alerts', token: 'alerts-token', overrideDestinationChannel: true },
    { id: 'off', token: 'off-token', enabled: false },
  ]);
  dataDir = await mkdtemp(join(tmpdir(), 'herald-teamchat-store-'));
  store = await createNotificationStore({ dataDir });
});
afterEach(async () => {
  await Promise.all(Object.values(channels).map((c) => c.close()));
  channels = {};
  chat.reset();
});
afterAll(async () => {
  await store.close();
  await chat.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("via(): ['database', 'teamchat', 'teamchat-alerts']", () => {
  it('reaches both webhooks and the store, each instance with its own route and message', async () => {
    channels = createTeamChatChannels({
      teamchat: chat.hookUrl('team'),
      'teamchat-alerts': { webhook: chat.hookUrl('alerts'), timeout: 5 },
    });
    const notifier = createNotifier({
      channels: { database: createDatabaseChannel({ store }), ...channels },
    });
    const oncall = { type: 'User', id: 7, routeNotificationForTeamchatAlerts: () => '#ops' };

    const report = await notifier.notifiable(oncall).notify(new ServerDown());

    expect(report).toMatchObject({
      ok: true,
      delivered: { database: 1, teamchat: 1, 'teamchat-alerts': 1 },
    });
    expect(chat.received.map(({ hookId, body }) => ({ hookId, body }))).toEqual([
      { hookId: 'team', body: { text: 'db-1 stopped answering' } },
      {
        hookId: 'alerts',
        body: {
          text: 'db-1 is down',
          attachments: [{ color: '#a30200', fields: [{ title: 'Host', value: 'db-1', short: true }] }],
          channel: '#ops',
        },
      },
    ]);
    const page = await store.list({ type: 'User', id: '7' }, { page: 1, limit: 10 });
    expect(page.records).toHaveLength(1);
    expect(page.records[0]).toMatchObject({
      id: report.ids[0],
      type: 'ServerDown',
      data: { title: 'Server down', message: 'db-1 stopped answering', icon: 'alert' },
    });
  });

  it('still stores and posts to the other webhook when one instance fails, and reports that one', async () => {
    channels = createTeamChatChannels({
      teamchat: chat.hookUrl('team'),
      'teamchat-alerts': chat.hookUrl('off'),
    });
    const notifier = createNotifier({
      channels: { database: createDatabaseChannel({ store }), ...channels },
    });

    const report = await notifier.notifiable({ type: 'User', id: 8 }).notify(new ServerDown());

    expect(report.ok).toBe(false);
    expect(report.delivered).toEqual({ database: 1, teamchat: 1 });
    expect(report.failures).toHaveLength(1);
    const failure = report.failures[0];
    expect(failure?.channel).toBe('teamchat-alerts');
    expect(failure?.error.cause).toBeInstanceOf(CouldNotSendNotification);
    expect(failure?.error.cause).toMatchObject({
      channel: 'teamchat-alerts',
      response: { status: 503, body: { success: false, error: 'Service Unavailable' } },
    });
    expect(failure?.error.message).not.toContain('off-token');
    expect(chat.received.map((p) => p.hookId)).toEqual(['team']);
    expect((await store.list({ type: 'User', id: '8' }, { page: 1, limit: 10 })).records).toHaveLength(1);
  });
});
