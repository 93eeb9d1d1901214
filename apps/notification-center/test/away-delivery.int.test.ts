import {
  createNotificationClient,
  type NotificationClient,
  type SendRequest,
  signUserToken,
} from '@herald/notifications';
import { fence, freePort, until } from '@herald/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SmtpSink, startSmtpSink } from '../../../packages/email-channel/test/smtp-sink.js';
import {
  CENTER_STORES,
  type CenterStore,
  type RunningCenter,
  serveCenter,
  storeEnvFor,
} from './center-server.js';
import { connectPusher, type PusherClient } from './pusher-client.js';
import { type RealtimeProcess, startRealtime } from './realtime-process.js';

// Everything here is real: Herald's real-time server (its built bin) tells who has a bell open, pusher-js is the
// bell's live connection, the notification center runs on a real port with its store (PGlite or PostgreSQL), and
// email goes over SMTP to a real SMTP server on loopback (the `smtp-server` package).

const APP = { id: 'away-test', key: 'away-test-key', secret: 'away-test-secret' };
const API_SECRET = 'away-tests-api-secret-0123';
const TOKEN_SECRET = 'away-tests-user-token-secret-0123456789';
const DIGESTED = { away_after_seconds: 1, digest_window_seconds: 3 };

describe.each(CENTER_STORES)('away delivery on %s', (storeKind: CenterStore) => {
  let realtime: RealtimeProcess;
  let smtp: SmtpSink;
  let storeEnv: Record<string, string>;
  let cleanup: () => Promise<void>;
  let running: RunningCenter | undefined;
  let client: NotificationClient;
  let markers = 0;
  const pushers: PusherClient[] = [];

  async function startCenter() {
    const port = await freePort();
    running = await serveCenter(
      {
        ...storeEnv,
        REALTIME_URL: `http://127.0.0.1:${realtime.port}`,
        REALTIME_APP_ID: APP.id,
        REALTIME_APP_KEY: APP.key,
        REALTIME_APP_SECRET: APP.secret,
        NOTIFICATION_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        NOTIFICATION_MAIL_FROM: 'Herald <notify@example.test>',
        NOTIFICATION_PUBLIC_URL: `http://127.0.0.1:${port}`,
        NOTIFICATION_API_SECRET: API_SECRET,
        NOTIFICATION_USER_TOKEN_SECRET: TOKEN_SECRET,
        NOTIFICATION_TYPES: JSON.stringify({ Digested: DIGESTED }),
      },
      port,
    );
    client = createNotificationClient({ url: running.base, secret: API_SECRET });
  }

  async function stopCenter() {
    const stopping = running;
    running = undefined;
    await stopping?.stop();
  }

  beforeAll(async () => {
    [realtime, smtp] = await Promise.all([startRealtime(APP), startSmtpSink()]);
    ({ env: storeEnv, cleanup } = await storeEnvFor(storeKind));
    await startCenter();
  });

  afterAll(async () => {
    for (const pusher of pushers) pusher.disconnect();
    await stopCenter();
    await Promise.all([realtime?.stop(), smtp?.stop()]);
    await cleanup?.();
  });

  const user = (name: string) => ({ id: `${storeKind}-${name}`, email: `${storeKind}-${name}@example.test` });

  function send(request: SendRequest) {
    return client.send(request);
  }

  /**
   * Sends a marker email to a user nobody watches, due `afterSeconds` from now: away deliveries go out in the
   * order they are due, so once it has arrived every delivery due before it has been sent or dropped.
   */
  function sendMarker(afterSeconds: number) {
    markers += 1;
    const marker = user(`marker-${markers}`);
    return {
      address: marker.email,
      sent: send({
        recipients: [marker],
        type: 'Marker',
        data: { title: `Marker ${markers}`, message: 'fence' },
        away_after_seconds: afterSeconds,
      }),
    };
  }

  async function fenceMails(unwantedTo: string, afterSeconds: number) {
    let markerAddress = '';
    await fence({
      received: () => smtp.received,
      sendMarker: async () => {
        const marker = sendMarker(afterSeconds);
        markerAddress = marker.address;
        await marker.sent;
      },
      isMarker: (mail) => mail.to.includes(markerAddress),
      unwanted: (mail) => mail.to.includes(unwantedTo),
      what: `an email to ${unwantedTo}`,
      limitMs: 60_000,
    });
  }

  it('gives a recipient with a bell open the bell notification and no email', async () => {
    const alice = user('online');
    const token = await signUserToken({ secret: TOKEN_SECRET, userId: alice.id });
    const pusher = connectPusher({
      key: APP.key,
      port: realtime.port,
      authEndpoint: `${running?.base}/broadcasting/auth`,
      headers: { authorization: `Bearer ${token}` },
    });
    pushers.push(pusher);
    const bell = pusher.subscribe(`private-User.${alice.id}`);
    const created: Array<{ id: string }> = [];
    bell.bind('notification.created', (data: { id: string }) => created.push(data));
    await new Promise<void>((resolve, reject) => {
      bell.bind('pusher:subscription_succeeded', () => resolve());
      bell.bind('pusher:subscription_error', (error: unknown) => reject(new Error(JSON.stringify(error))));
    });

    const result = await send({
      recipients: [alice],
      type: 'Mentioned',
      data: { title: 'Ada mentioned you', message: 'in #general' },
      channels: ['database', 'broadcast'],
      away_after_seconds: 1,
    });
    expect(result.delivered).toEqual({ database: 1, broadcast: 1, away: 1 });
    await until(() => created.length === 1, { what: 'the bell notification', limitMs: 30_000 });
    expect(created[0]?.id).toBe(result.notifications[0]?.id);
    await fenceMails(alice.email, 2);
  });

  it('emails a recipient who is away after the delay, with both parts and a working List-Unsubscribe', async () => {
    const bob = user('away');
    const sentAt = Date.now();
    await send({
      recipients: [bob],
      type: 'CommentReplied',
      data: {
        title: 'Ada replied <3',
        message: 'Looks good to me',
        action_url: 'https://app.example/posts/7',
      },
      away_after_seconds: 1,
    });
    await until(() => smtp.to(bob.email).length === 1, { what: 'the email to bob', limitMs: 30_000 });
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(1000);
    const { mail, header } = smtp.to(bob.email)[0] as NonNullable<ReturnType<SmtpSink['to']>[number]>;
    expect(mail.subject).toBe('Ada replied <3');
    expect(mail.from?.value[0]).toMatchObject({ name: 'Herald', address: 'notify@example.test' });
    expect(mail.text).toContain('Ada replied <3\nLooks good to me\nhttps://app.example/posts/7');
    expect(mail.html).toContain('<a href="https://app.example/posts/7">Ada replied &lt;3</a>');
    expect(mail.html).toContain('Looks good to me');
    expect(header('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    const link = /^<(.+)>$/.exec(header('list-unsubscribe') ?? '')?.[1] as string;
    expect(link.startsWith(`${running?.base}/notification/unsubscribe?`)).toBe(true);

    // A forged link changes nothing.
    const forged = new URL(link);
    forged.searchParams.set('id', user('someone-else').id);
    expect((await fetch(forged, { method: 'POST', body: 'List-Unsubscribe=One-Click' })).status).toBe(403);

    // The one-click unsubscribe a mail client sends (RFC 8058).
    const unsubscribed = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(unsubscribed.status).toBe(200);
    const token = await signUserToken({ secret: TOKEN_SECRET, userId: bob.id });
    const preferences = (await (
      await fetch(`${running?.base}/notification/preferences.json`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { data: { types: Record<string, Record<string, boolean>> } };
    expect(preferences.data.types).toEqual({ CommentReplied: { email: false } });

    // Email of that type stops; other types still come.
    await send({
      recipients: [bob],
      type: 'CommentReplied',
      data: { title: 'Ada replied again', message: 'One more thing' },
      away_after_seconds: 1,
    });
    await send({
      recipients: [bob],
      type: 'InvoicePaid',
      data: { title: 'Invoice paid', message: 'Invoice #12 was paid' },
      away_after_seconds: 2,
    });
    await until(() => smtp.to(bob.email).length === 2, { what: 'the InvoicePaid email', limitMs: 30_000 });
    expect(smtp.to(bob.email).map((item) => item.mail.subject)).toEqual(['Ada replied <3', 'Invoice paid']);
  });

  it('sends five notifications inside the digest window as one email', async () => {
    const carol = user('digest');
    for (let index = 1; index <= 5; index += 1) {
      await send({
        recipients: [carol],
        type: 'Digested',
        data: { title: `Comment ${index}`, message: `Body ${index}` },
      });
    }
    await until(() => smtp.to(carol.email).length === 1, { what: 'the digest email', limitMs: 30_000 });
    await fenceMails('nobody', DIGESTED.away_after_seconds + DIGESTED.digest_window_seconds + 1);
    expect(smtp.to(carol.email)).toHaveLength(1);
    const { mail, header } = smtp.to(carol.email)[0] as NonNullable<ReturnType<SmtpSink['to']>[number]>;
    expect(mail.subject).toBe('5 new notifications');
    for (let index = 1; index <= 5; index += 1) {
      expect(mail.text).toContain(`Comment ${index}\nBody ${index}`);
      expect(mail.html).toContain(`Comment ${index}`);
    }
    expect(mail.text?.indexOf('Comment 1')).toBeLessThan(mail.text?.indexOf('Comment 5') ?? -1);
    expect(header('list-unsubscribe')).toContain('type=Digested');
  });

  it('cancels the email when the notification is read in the bell before the delay ends', async () => {
    const dave = user('reader');
    const result = await send({
      recipients: [dave],
      type: 'Mentioned',
      data: { title: 'Read me', message: 'soon' },
      away_after_seconds: 2,
    });
    const token = await signUserToken({ secret: TOKEN_SECRET, userId: dave.id });
    const read = await fetch(
      `${running?.base}/notification/notifications/${result.notifications[0]?.id}/read.json`,
      {
        method: 'PATCH',
        headers: { authorization: `Bearer ${token}` },
      },
    );
    expect(read.status).toBe(200);
    await fenceMails(dave.email, 3);
  });

  it('still delivers when the center restarts during the delay', async () => {
    const erin = user('restart');
    await send({
      recipients: [erin],
      type: 'Mentioned',
      data: { title: 'Across a restart', message: 'kept in the store' },
      away_after_seconds: 2,
    });
    await stopCenter();
    expect(smtp.to(erin.email)).toHaveLength(0);
    await startCenter();
    await until(() => smtp.to(erin.email).length === 1, {
      what: 'the email after the restart',
      limitMs: 30_000,
    });
    expect(smtp.to(erin.email)[0]?.mail.subject).toBe('Across a restart');
  });

  it('emails the address the recipient’s user token carried when the send names none', async () => {
    const frank = user('token-address');
    const token = await signUserToken({ secret: TOKEN_SECRET, userId: frank.id, email: frank.email });
    // The bell's first request (its list) carries the token; the service keeps the address it names.
    const list = await fetch(`${running?.base}/notification/notifications.json`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(list.status).toBe(200);
    await send({
      recipients: [frank.id],
      type: 'Mentioned',
      data: { title: 'Addressed by the token', message: 'no email in the send' },
      away_after_seconds: 1,
    });
    await until(() => smtp.to(frank.email).length === 1, { what: 'the email to frank', limitMs: 30_000 });
    expect(smtp.to(frank.email)[0]?.mail.subject).toBe('Addressed by the token');
  });

  it('refuses away channels the service does not have, naming the field', async () => {
    const error = await send({
      recipients: [user('bad')],
      type: 'Mentioned',
      data: { title: 't', message: 'm' },
      away_after_seconds: 1,
      away_channels: ['fax'],
    }).catch((caught: unknown) => caught as { status: number; body: { error: { issues: unknown[] } } });
    expect(error).toMatchObject({
      status: 422,
      body: { error: { code: 'validation_failed', issues: [{ path: 'away_channels.0' }] } },
    });
  });
});
