import { until } from '@herald/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createRealtimeServer, type RealtimeServer } from '../src/index.js';
import { APP, TEST_TRANSPORT } from './support.js';

// Per-address limits at the upgrade, from three loopback addresses of this machine (127.0.0.2 and 127.0.0.3 are
// loopback too on Linux, and ::1 is IPv6). The servers listen on `::` so IPv4 clients arrive IPv4-mapped, as they
// do on a dual-stack node.

/** How an upgrade ended: opened (with the socket, to close later), or refused with an HTTP status. */
type Attempt =
  | { readonly opened: true; readonly ws: WebSocket }
  | {
      readonly opened: false;
      readonly status: number;
      readonly retryAfter: string | undefined;
      body: string;
    };

function attempt(
  port: number,
  options: { from: string; host?: string; forwardedFor?: string | string[] },
): Promise<Attempt> {
  const host = options.host ?? (options.from.includes(':') ? '[::1]' : '127.0.0.1');
  const ws = new WebSocket(`ws://${host}:${port}/app/${APP.key}?protocol=7`, {
    localAddress: options.from,
    headers: options.forwardedFor ? { 'x-forwarded-for': options.forwardedFor } : {},
  });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ opened: true, ws }));
    let answered = false;
    ws.once('unexpected-response', (request, response) => {
      answered = true;
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on('end', () => {
        request.destroy();
        resolve({
          opened: false,
          status: response.statusCode ?? 0,
          retryAfter: response.headers['retry-after'],
          body,
        });
      });
    });
    ws.on('error', (error) => {
      if (!answered) reject(error);
    });
  });
}

async function refusals(server: RealtimeServer, reason: string): Promise<number> {
  const metric = await server.metrics.registry.getSingleMetric('herald_upgrades_refused_total')?.get();
  return metric?.values.find((value) => value.labels.reason === reason)?.value ?? 0;
}

describe('per-address limits at the upgrade', () => {
  const open: WebSocket[] = [];
  let capped: RealtimeServer;
  let cappedPort: number;
  let paced: RealtimeServer;
  let pacedPort: number;

  beforeAll(async () => {
    const base = {
      host: '::',
      port: 0,
      processMetrics: false,
      transport: TEST_TRANSPORT,
      apps: [{ ...APP }],
    };
    capped = createRealtimeServer({ ...base, maxConnectionsPerIp: 1, trustedProxies: ['127.0.0.1'] });
    cappedPort = await capped.listen();
    // 0.2 a second: one upgrade, then the next token is 5 s away (the test never waits for it).
    paced = createRealtimeServer({ ...base, maxUpgradesPerIpPerSecond: 0.2 });
    pacedPort = await paced.listen();
  });

  afterAll(async () => {
    for (const ws of open) ws.terminate();
    await Promise.all([capped?.close(), paced?.close()]);
  });

  async function opens(port: number, options: Parameters<typeof attempt>[1]): Promise<void> {
    const result = await attempt(port, options);
    if (result.opened) open.push(result.ws);
    expect(result).toMatchObject({ opened: true });
  }

  async function isRefused(port: number, options: Parameters<typeof attempt>[1]) {
    const result = await attempt(port, options);
    if (result.opened) open.push(result.ws);
    expect(result).toMatchObject({ opened: false, status: 429 });
    return result as Extract<Attempt, { opened: false }>;
  }

  it('answers 429 with Retry-After to an address over its connection cap while others connect', async () => {
    await opens(cappedPort, { from: '127.0.0.2' });
    const refused = await isRefused(cappedPort, { from: '127.0.0.2' });
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(JSON.parse(refused.body).error).toMatch(/max_connections_per_ip/);
    await opens(cappedPort, { from: '127.0.0.3' });
    await opens(cappedPort, { from: '::1' });
    // The refused upgrade never became a socket: the app counts the three that opened.
    await until(async () => (await capped.connectionCount(APP.id)) === 3, { what: 'three sockets' });
    expect(await refusals(capped, 'connections_per_ip')).toBe(1);
  });

  it('lets an address in again once its socket closed', async () => {
    const first = open.shift() as WebSocket; // 127.0.0.2's socket.
    first.close();
    await until(async () => (await capped.connectionCount(APP.id)) === 2, { what: 'the socket to close' });
    await opens(cappedPort, { from: '127.0.0.2' });
  });

  it('answers 429 to an address over its upgrade rate while another connects normally', async () => {
    await opens(pacedPort, { from: '127.0.0.2' });
    const refused = await isRefused(pacedPort, { from: '127.0.0.2' });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(5);
    await opens(pacedPort, { from: '::1' });
    await opens(pacedPort, { from: '127.0.0.3' });
    expect(await refusals(paced, 'upgrades_per_ip')).toBe(1);
  });

  it('takes the client address from X-Forwarded-For only when a trusted proxy sends it', async () => {
    // Through the trusted proxy (127.0.0.1), two clients: each gets its own cap.
    await opens(cappedPort, { from: '127.0.0.1', forwardedFor: '203.0.113.7' });
    await opens(cappedPort, { from: '127.0.0.1', forwardedFor: '198.51.100.1, 203.0.113.8' });
    await isRefused(cappedPort, { from: '127.0.0.1', forwardedFor: '203.0.113.7' });
    // From anyone else the header is forged: 127.0.0.4 is capped as itself, whatever address it claims.
    await opens(cappedPort, { from: '127.0.0.4', forwardedFor: '203.0.113.20' });
    await isRefused(cappedPort, { from: '127.0.0.4', forwardedFor: '203.0.113.21' });
  });

  it('reads every X-Forwarded-For line a trusted proxy sends, the last one right-most', async () => {
    // Two header lines count as one list (RFC 9110 §5.3): the client is the last line's address, not the first's.
    await opens(cappedPort, { from: '127.0.0.1', forwardedFor: ['198.51.100.60', '203.0.113.60'] });
    await isRefused(cappedPort, { from: '127.0.0.1', forwardedFor: '203.0.113.60' });
    await opens(cappedPort, { from: '127.0.0.1', forwardedFor: '198.51.100.60' });
  });

  it('refuses a trusted_proxies entry that is not an address or range', () => {
    expect(() =>
      createRealtimeServer({
        apps: [{ ...APP }],
        processMetrics: false,
        trustedProxies: ['10.0.0.0/8', 'lb'],
      }),
    ).toThrow(/trustedProxies\[1\]: "lb" is not an IP address/);
  });
});
