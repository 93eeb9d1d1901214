// One target of the HTTP bridge benchmark, started in its own process: node bridge-target.mjs <mode>
//   uws-raw     uWebSockets.js answering directly (the ceiling: no bridge, no hono)
//   uws-bridge  Herald's realtime server: uWS -> fetch bridge -> the hono REST API
//   node-hono   the same hono REST API on node:http through @hono/node-server (the usual Node setup)
import { createHttpApi } from '@herald/http-api';
import { createRealtimeServer, loadNativeUws } from '@herald/realtime-server';
import { serve } from '@hono/node-server';

const mode = process.argv[2];
// Exit on SIGINT so `node --cpu-prof` writes its profile.
process.on('SIGINT', () => process.exit(0));
const app = { id: 'bench', key: 'bench-key', secret: 'bench-secret', enabled: true, allowedOrigins: ['*'] };
const backend = {
  publish: () => {},
  channels: () => [],
  channel: () => ({ occupied: false, subscriptionCount: 0 }),
  presenceUsers: () => [],
  terminateUser: () => {},
  metrics: () => ({ contentType: 'text/plain', body: '' }),
};

function ready(port) {
  process.stdout.write(`ready ${port}\n`);
}

if (mode === 'uws-raw') {
  const load = loadNativeUws();
  if (!load.ok) throw new Error('uws-raw needs a native uWebSockets.js build on this Node');
  const uws = load.uws.module;
  const server = uws.App().get('/up', (res) => {
    res.cork(() => res.writeHeader('content-type', 'application/json').end('{"health":"OK"}'));
  });
  server.any('/*', (res) => {
    res.onAborted(() => {});
    res.onData((_chunk, last) => {
      if (last) res.cork(() => res.writeHeader('content-type', 'application/json').end('{}'));
    });
  });
  server.listen('127.0.0.1', 0, (socket) => ready(uws.us_socket_local_port(socket)));
} else if (mode === 'uws-bridge') {
  let api;
  const server = createRealtimeServer({
    apps: [app],
    host: '127.0.0.1',
    port: 0,
    processMetrics: false,
    httpHandler: (request) => api.fetch(request),
  });
  api = createHttpApi({
    apps: [app],
    backend: {
      ...backend,
      publish: (appId, event) => server.publish(appId, event),
    },
  });
  ready(await server.listen());
} else if (mode === 'node-hono') {
  const api = createHttpApi({ apps: [app], backend });
  const server = serve({ fetch: api.fetch, hostname: '127.0.0.1', port: 0 }, (info) => ready(info.port));
  process.on('SIGTERM', () => server.close());
} else {
  console.error(`unknown mode ${mode}`);
  process.exit(1);
}
