import { setFlagsFromString } from 'node:v8';
import { until } from '@herald/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { loadNativeUws, ServerMetrics, silentLogger, type Transport } from '../src/index.js';
import { createAddressLimits } from '../src/server/address-limits.js';
import { socketData } from '../src/server/admission.js';
import { createAppRegistry, loadApps } from '../src/server/app-registry.js';
import { createUwsTransportFrom } from '../src/transport/uws.js';
import { APP, TEST_TRANSPORT } from './support.js';

// uWebSockets.js copies every property of the upgrade's user data onto its socket object (`getUserData()` answers the
// socket itself), one by one through V8's API, and V8 keeps at most 15 properties added that way in fast mode. Past
// that, each socket's fields live in a hash table: 0.7 KiB more per idle socket (1.42 KiB of heap each instead of
// 0.74) and slower reads of every field. Checked on the real uWS build with V8's own test of an object's mode.

setFlagsFromString('--allow-natives-syntax');
const hasFastProperties = new Function('object', 'return %HasFastProperties(object)') as (
  object: object,
) => boolean;
setFlagsFromString('--no-allow-natives-syntax');

const load = loadNativeUws();
// The state is the same on both transports; the portable project runs this file again only where no build loads.
const skip = !load.ok || TEST_TRANSPORT === 'portable';

describe.skipIf(skip)('a socket on the uWebSockets.js transport', () => {
  const metrics = new ServerMetrics({ processMetrics: false });
  const apps = createAppRegistry({ activityTimeout: 120, pingInterval: 30 });
  loadApps(apps, metrics, [APP]);
  // Per-address limits on, so every field the server can set at the upgrade is set (the address too).
  const ctx = {
    apps,
    logger: silentLogger,
    addressLimits: createAddressLimits(
      { maxConnectionsPerIp: 1000, maxUpgradesPerIpPerSecond: 0, trustedProxies: [] },
      metrics,
    ),
  };
  let extraFields = 0;
  const opened: object[] = [];
  let transport: Transport;
  let port: number;

  beforeAll(async () => {
    if (!load.ok) return;
    transport = createUwsTransportFrom(load.uws.module, {
      upgradePrefix: '/app/',
      maxPayloadLength: 10_000,
      maxBackpressure: 1024 * 1024,
      handlers: {
        upgrade: (request) => {
          const data = socketData(ctx, request, `1.${opened.length}`);
          for (let i = 0; i < extraFields; i++) Object.assign(data, { [`extra${i}`]: i });
          return data;
        },
        open: (ws) => {
          opened.push(ws.getUserData());
        },
        message: () => {},
        activity: () => {},
        close: () => {},
        http: (exchange) => exchange.respond(404, {}, '', false),
      },
    });
    port = await transport.listen('127.0.0.1', 0);
  });

  afterAll(() => transport?.stopListening());

  async function open(): Promise<object> {
    const before = opened.length;
    const ws = new WebSocket(`ws://127.0.0.1:${port}/app/${APP.key}?protocol=7`);
    ws.on('error', () => {});
    await until(() => opened.length > before, 'the socket to open');
    ws.terminate();
    return opened[before] as object;
  }

  it('keeps the server state in fast properties', async () => {
    const state = await open();
    expect(Object.keys(state)).toContain('address');
    expect(hasFastProperties(state)).toBe(true);
  });

  it('would not with one field more than the budget of 15', async () => {
    extraFields = 16 - Object.keys(socketData(ctx, upgradeOf(), '0.0')).length;
    const state = await open();
    expect(Object.keys(state)).toHaveLength(16);
    expect(hasFastProperties(state)).toBe(false);
  });
});

function upgradeOf() {
  return { key: APP.key, origin: '', query: 'protocol=7', remoteAddress: '127.0.0.1', forwardedFor: '' };
}
