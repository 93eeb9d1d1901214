import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { until } from '@herald/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SmtpSink, startSmtpSink } from '../../../packages/email-channel/test/smtp-sink.js';
import { type RunningCenter, startCenter } from './center-server.js';
import { type RealtimeProcess, startRealtime, startTogether } from './realtime-process.js';
import { type WebhookReceiver, webhookReceiver } from './webhook-receiver.js';

const run = promisify(execFile);
const APP_DIR = fileURLToPath(new URL('..', import.meta.url));
const APP_README = new URL('../README.md', import.meta.url);
const PACKAGE_README = new URL('../../../packages/notifications/README.md', import.meta.url);

const API_SECRET = 'readme-send-secret-0123456789abcdef';
const TOKEN_SECRET = 'readme-user-token-secret-0123456789abcdef';

/** The first fenced block of `lang` after `heading` in a README, as written there. */
async function block(readme: URL, heading: string, lang: string): Promise<string> {
  const text = await readFile(readme, 'utf8');
  const from = text.indexOf(heading);
  expect(from, `heading "${heading}"`).toBeGreaterThanOrEqual(0);
  const match = new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(text.slice(from));
  expect(match, `a ${lang} block under "${heading}"`).not.toBeNull();
  return (match as RegExpExecArray)[1] as string;
}

describe('the README examples, run as written', () => {
  let running: RunningCenter;
  let realtime: RealtimeProcess;
  let receiver: WebhookReceiver;
  let smtp: SmtpSink;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    const app = { id: 'readme', key: 'readme-key', secret: 'readme-secret' };
    [realtime, receiver, smtp] = await startTogether([
      startRealtime(app),
      webhookReceiver(),
      startSmtpSink(),
    ]);
    running = await startCenter('pglite', {
      NOTIFICATION_API_SECRET: API_SECRET,
      NOTIFICATION_USER_TOKEN_SECRET: TOKEN_SECRET,
      REALTIME_URL: `http://127.0.0.1:${realtime.port}`,
      REALTIME_APP_ID: app.id,
      REALTIME_APP_KEY: app.key,
      REALTIME_APP_SECRET: app.secret,
      TEAMCHAT_WEBHOOKS: JSON.stringify({ teamchat: receiver.url('/hooks/general/token') }),
      NOTIFICATION_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    });
    env = {
      PATH: process.env.PATH,
      NOTIFICATION_CENTER_URL: running.base,
      NOTIFICATION_API_SECRET: API_SECRET,
      NOTIFICATION_USER_TOKEN_SECRET: TOKEN_SECRET,
    };
  });
  afterAll(async () => {
    await running?.stop();
    await Promise.all([realtime?.stop(), receiver?.close(), smtp?.stop()]);
  });

  it('sends with the app README’s curl command', async () => {
    const script = await block(APP_README, '## Sending from your backend', 'sh');
    const { stdout } = await run('bash', ['-c', script], { env });
    const answer = JSON.parse(stdout) as { data: { ok: boolean; delivered: Record<string, number> } };
    expect(answer.data).toMatchObject({ ok: true, delivered: { database: 2, broadcast: 2 } });
    expect(await running.center.store.count({ type: 'DeployFinished' })).toBe(2);
  });

  it('sends with the package README’s curl command (its host made the test’s)', async () => {
    const script = (await block(PACKAGE_README, '## Sending from another backend', 'sh')).replaceAll(
      'http://127.0.0.1:8090',
      running.base,
    );
    const { stdout } = await run('bash', ['-c', script], { env });
    const answer = JSON.parse(stdout) as { data: { ok: boolean; delivered: Record<string, number> } };
    expect(answer.data).toMatchObject({ ok: true, delivered: { database: 2, broadcast: 2, teamchat: 2 } });
    expect(receiver.bodies.get('/hooks/general/token')?.[0]).toEqual({
      text: '*Invoice paid*\nInvoice #12 was paid\n/invoices/12',
    });
  });

  it('emails an away recipient with the app README’s end-to-end curl command', async () => {
    const script = await block(APP_README, '## Away delivery and email, end to end', 'sh');
    const { stdout } = await run('bash', ['-c', script], { env });
    const answer = JSON.parse(stdout) as { data: { ok: boolean; delivered: Record<string, number> } };
    // The team-chat instance is an away channel too: the README's promise is about the email.
    expect(answer.data).toMatchObject({ ok: true, delivered: { database: 1, broadcast: 1, away: 1 } });
    await until(() => smtp.to('carol@example.com').length === 1, { what: 'Carol’s email', limitMs: 30_000 });
    const mail = smtp.to('carol@example.com')[0];
    expect(mail?.mail.subject).toBe('Ada replied');
    expect(mail?.header('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
  });

  it('signs a token and reads the JSON API with the app README’s Node example', async () => {
    const script = await block(APP_README, '## Letting your users in', 'js');
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      env,
      cwd: APP_DIR,
    });
    expect(stdout).toMatch(/^200 \{ unread_count: \d+ \}/);
  });

  it('signs a token with the package README’s example', async () => {
    const script = await block(PACKAGE_README, '## Authenticating users', 'js');
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      env,
      cwd: APP_DIR,
    });
    expect(stdout.trim()).toBe('3');
  });
});
