import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentNotificationLogger } from '@herald/notifications';
import { type ServerType, serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNotificationCenter, type NotificationCenter } from '../src/center.js';
import { configFromEnv } from '../src/config.js';
import { type WebhookReceiver, webhookReceiver } from './webhook-receiver.js';

describe('notification center with team-chat webhooks', () => {
  let receiver: WebhookReceiver;
  let center: NotificationCenter;
  let server: ServerType;
  let base: string;
  let dataDir: string;

  beforeAll(async () => {
    receiver = await webhookReceiver();
    dataDir = await mkdtemp(join(tmpdir(), 'herald-nc-tc-'));
    const loaded = configFromEnv({
      NOTIFICATION_PGLITE_DIR: dataDir,
      TEAMCHAT_WEBHOOKS: JSON.stringify({
        teamchat: receiver.url('/hooks/general/token-1'),
        'teamchat-alerts': receiver.url('/hooks/alerts/token-2'),
      }),
    });
    if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
    center = await createNotificationCenter(loaded.config, silentNotificationLogger);
    server = serve({ fetch: center.app.fetch, hostname: '127.0.0.1', port: 0 });
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await center.close();
    await receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('registers every configured webhook as a channel and sends the demo notification through each', async () => {
    // `push` (Web Push) is always there beside the configured team-chat webhooks.
    expect([...center.notifier.channelNames].sort()).toEqual([
      'database',
      'push',
      'teamchat',
      'teamchat-alerts',
    ]);
    const login = await fetch(`${base}/login`, {
      method: 'POST',
      body: new URLSearchParams({ user: 'alice' }),
      redirect: 'manual',
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const html = await (await fetch(`${base}/`, { headers: { cookie } })).text();
    const csrf = /<meta name="csrfToken" content="([^"]+)">/.exec(html)?.[1] as string;
    const sent = await fetch(`${base}/demo/send`, {
      method: 'POST',
      headers: { cookie },
      body: new URLSearchParams({ _csrf: csrf, title: 'Deploy finished', message: 'v1.2.3 is live' }),
      redirect: 'manual',
    });
    expect(sent.status).toBe(303);
    const expected = {
      text: '*Deploy finished*',
      attachments: [{ text: 'v1.2.3 is live', color: '#2eb886' }],
    };
    expect(receiver.bodies.get('/hooks/general/token-1')).toEqual([expected]);
    expect(receiver.bodies.get('/hooks/alerts/token-2')).toEqual([expected]);
  });
});
