import type { LogFields, Logger } from '@herald/realtime-server';
import Pusher from 'pusher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../src/config-schema.js';
import { type RunningRealtime, startRealtime } from '../src/start.js';

// Who may read /metrics (a bearer token, a port of its own on localhost), and what refused or logged requests
// say: never an app secret, never more than Pusher's API about a bad signature. One server per setting, in process.

const APP = { id: 'shop', key: 'shop-key', secret: 'shop-secret-d41d8cd98f00b204' };
const TOKEN = 'metrics-token-5f4dcc3b5aa765d61d8327deb882cf99';

/** A logger that keeps every line (all levels), to look for secrets in them. */
function recordingLogger(lines: string[]): Logger {
  const keep = (level: string) => (message: string, fields?: LogFields) => {
    lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  };
  return { debug: keep('debug'), info: keep('info'), warn: keep('warn'), error: keep('error') };
}

function boot(metrics: object, logger: Logger): Promise<RunningRealtime> {
  const config = configSchema.parse({
    transport: process.env.REALTIME_TRANSPORT ?? 'auto',
    servers: { herald: { host: '127.0.0.1', port: 0 } },
    applications: [APP],
    metrics,
  });
  return startRealtime(config, logger);
}

const scrape = (port: number, headers: Record<string, string> = {}) =>
  fetch(`http://127.0.0.1:${port}/metrics`, { headers });

describe('/metrics behind a bearer token on the main port', () => {
  let running: RunningRealtime;
  const lines: string[] = [];

  beforeAll(async () => {
    running = await boot({ auth_token: TOKEN }, recordingLogger(lines));
  });
  afterAll(() => running.close());

  it('answers 401 JSON without the token or with another, and the Prometheus text with it', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer not-the-token-at-all' },
      { authorization: TOKEN },
    ];
    for (const headers of attempts) {
      const refused = await scrape(running.port, headers);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('content-type')).toContain('application/json');
      expect(await refused.json()).toEqual({ error: 'Unauthorized' });
    }
    const allowed = await scrape(running.port, { authorization: `Bearer ${TOKEN}` });
    expect(allowed.status).toBe(200);
    const text = await allowed.text();
    expect(text).toContain('app_id="shop"');
    expect(text).not.toContain(APP.secret);
    expect(running.metricsPort).toBeUndefined();
  });

  it('refuses a bad REST signature with no more than Pusher says, and logs no secret', async () => {
    const sdk = (secret: string) =>
      new Pusher({ appId: APP.id, key: APP.key, secret, host: '127.0.0.1', port: String(running.port) });
    const refused = await sdk('another-secret')
      .trigger('orders', 'placed', {})
      .catch((error: { status: number; body: string }) => error);
    expect(refused).toMatchObject({ status: 401 });
    expect(JSON.parse((refused as { body: string }).body)).toEqual({
      error: 'Unauthorized: invalid signature',
    });
    expect((await sdk(APP.secret).trigger('orders', 'placed', {})).status).toBe(200);
    const bearer = await fetch(`http://127.0.0.1:${running.port}/apps/shop/channels`, {
      headers: { authorization: 'Bearer shop-secret-d41d8cd98f00b20' },
    });
    expect(bearer.status).toBe(401);
    expect(await bearer.json()).toEqual({ error: 'Unauthorized: invalid token' });
    expect(lines.some((line) => line.includes('request refused: bad auth'))).toBe(true);
    expect(lines.join('\n')).not.toContain(APP.secret);
    expect(lines.join('\n')).not.toContain(TOKEN);
  });
});

describe('/metrics on a port of its own, bound to localhost', () => {
  let running: RunningRealtime;

  beforeAll(async () => {
    running = await boot({ port: 0, auth_token: TOKEN }, recordingLogger([]));
  });
  afterAll(() => running.close());

  it('is served on the metrics port only, behind the token there too', async () => {
    const port = running.metricsPort as number;
    expect(port).toBeGreaterThan(0);
    expect(port).not.toBe(running.port);
    expect((await scrape(running.port, { authorization: `Bearer ${TOKEN}` })).status).toBe(404);
    expect((await scrape(port)).status).toBe(401);
    const allowed = await scrape(port, { authorization: `Bearer ${TOKEN}` });
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain('app_id="shop"');
    expect((await fetch(`http://127.0.0.1:${port}/up`)).status).toBe(404);
    // Bound to 127.0.0.1 (the default host): the machine's other addresses do not answer.
    const other = await fetch(`http://127.0.0.2:${port}/metrics`).then(
      (response) => response.status,
      () => 'refused',
    );
    expect(other).toBe('refused');
  });
});
