import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentNotificationLogger } from '@herald/notifications';
import { type ServerType, serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNotificationCenter, type NotificationCenter } from '../src/center.js';
import { configFromEnv } from '../src/config.js';

// A stand-in for two Rocket.Chat incoming webhooks (no Rocket.Chat server can run here). It follows the
// documented contract for the parts used: a JSON POST to /hooks/{id}/{token}, answered 200 {"success":true}.
function webhookReceiver(): Promise<{
  server: Server;
  url: (hook: string) => string;
  bodies: Map<string, unknown[]>;
}> {
  const bodies = new Map<string, unknown[]>();
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => {
      text += chunk;
    });
    request.on('end', () => {
      const hook = request.url ?? '';
      bodies.set(hook, [...(bodies.get(hook) ?? []), JSON.parse(text)]);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      resolve({ server, bodies, url: (hook) => `http://127.0.0.1:${port}${hook}` });
    }),
  );
}

describe('notification center with team-chat webhooks', () => {
  let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
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
    await new Promise((resolve) => receiver.server.close(resolve));
    await rm(dataDir, { recursive: true, force: true });
  });

  it('registers every configured webhook as a channel and sends the demo notification through each', async () => {
    expect([...center.notifier.channelNames].sort()).toEqual(['database', 'teamchat', 'teamchat-alerts']);
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
