import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '@herald/test-kit';
import { afterAll, describe, expect, it } from 'vitest';
import { createWebhookDispatcher, webhookEvent } from '../src/index.js';
import { APP, APP_ID, appWith } from './support.js';

// The README's receiver, run as written: it must accept what the dispatcher sends and refuse a forged request.

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const snippet = /<!-- receiver -->\s*```js\n([\s\S]*?)```/.exec(readme)?.[1];
const dir = mkdtempSync(join(tmpdir(), 'herald-webhooks-readme-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

describe('the README receiver', () => {
  it('logs the events of a signed request and answers 401 to a forged one', async () => {
    expect(snippet).toBeDefined();
    const file = join(dir, 'receiver.mjs');
    writeFileSync(file, snippet ?? '');
    const port = await freePort();
    const child = spawn(process.execPath, [file], {
      env: { ...process.env, PUSHER_APP_KEY: APP.key, PUSHER_APP_SECRET: APP.secret, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const dispatcher = createWebhookDispatcher({
      apps: () => appWith([{ url: `http://localhost:${port}/`, event_types: ['channel_occupied'] }]),
      retry: { baseMs: 20, maxMs: 100 },
      pollMs: 20,
    });
    try {
      // Sent before the receiver listens, too: refused connections are retried.
      dispatcher.emit(APP_ID, webhookEvent.channelOccupied('orders'));
      dispatcher.emit(APP_ID, webhookEvent.channelOccupied('invoices'));
      await until(() => output.includes('channel_occupied invoices'));
      expect(output).toBe('channel_occupied orders\nchannel_occupied invoices\n');
      const forged = await fetch(`http://localhost:${port}/`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-pusher-key': APP.key,
          'x-pusher-signature': 'ab'.repeat(32),
        },
        body: '{"time_ms":1,"events":[{"name":"channel_occupied","channel":"forged"}]}',
      });
      expect(forged.status).toBe(401);
      expect(output).not.toContain('forged');
    } finally {
      await dispatcher.close({ drainMs: 0 });
      child.kill();
    }
  });
});
