// The ceiling: the least a Pusher-protocol server on uWebSockets.js can do, so the figures show what Node + uWS
// can reach on this machine. No validation, no signatures, no limits, no metrics: subscribe = ws.subscribe,
// client events = ws.publish (sender excluded), REST trigger = JSON.parse the body + app.publish of one frame,
// presence = a user count per channel and member_added/removed published to the topic.
// The build is the one Herald's own loader picks on this Node (an official `uWebSockets.js`, else the bundled ones), so
// the ceiling runs on every Node line where Herald runs native; where none loads, it says why and exits.
// Usage: node ceiling.mjs <port>
import { loadNativeUws } from '@herald/realtime-server';
import {
  connectionEstablished,
  createPresence,
  dispatchFrame,
  frame,
  subscribed,
} from './lib/ceiling-protocol.mjs';

const load = loadNativeUws();
if (!load.ok) {
  const tried = load.attempts.map((attempt) => `${attempt.name}: ${attempt.reason}`).join('; ');
  console.error(`ceiling: no native uWebSockets.js build loads on Node ${process.versions.node}: ${tried}`);
  process.exit(1);
}
const uws = load.uws.module;
const port = Number(process.argv[2] ?? 0);
const decoder = new TextDecoder();
const presence = createPresence();
let nextId = 1;

function join(ws, channel, channelData) {
  const joined = presence.join(channel, channelData);
  ws.getUserData().members.set(channel, joined.userId);
  // uWS only publishes from a socket that has a subscription, so subscribe first (publish excludes the sender).
  ws.subscribe(channel);
  if (joined.added) ws.publish(channel, joined.added);
  ws.send(joined.succeeded);
}

function leave(ws, channel) {
  ws.unsubscribe(channel);
  const userId = ws.getUserData().members.get(channel);
  if (userId === undefined) return;
  ws.getUserData().members.delete(channel);
  const removed = presence.leave(channel, userId);
  if (removed) app.publish(channel, removed);
}

const ops = {
  subscribe(ws, channel, channelData) {
    if (channel.startsWith('presence-')) join(ws, channel, channelData);
    else {
      ws.subscribe(channel);
      ws.send(subscribed(channel));
    }
  },
  unsubscribe: leave,
  send: (ws, text) => ws.send(text),
  clientEvent: (ws, channel, text) => ws.publish(channel, text),
};

const app = uws.App();
app.ws('/*', {
  idleTimeout: 0,
  maxBackpressure: 1024 * 1024,
  maxPayloadLength: 1024 * 1024,
  upgrade: (res, req, context) => {
    res.upgrade(
      { socketId: `${process.pid}.${nextId++}`, members: new Map() },
      req.getHeader('sec-websocket-key'),
      req.getHeader('sec-websocket-protocol'),
      req.getHeader('sec-websocket-extensions'),
      context,
    );
  },
  open: (ws) => {
    ws.send(connectionEstablished(ws.getUserData().socketId));
  },
  message: (ws, message) => dispatchFrame(ws, decoder.decode(message), ops),
  close: (ws) => {
    for (const channel of [...ws.getUserData().members.keys()]) leave(ws, channel);
  },
});

app.post('/apps/:id/events', (res) => {
  let aborted = false;
  const chunks = [];
  res.onAborted(() => {
    aborted = true;
  });
  res.onData((chunk, last) => {
    chunks.push(Buffer.from(chunk.slice(0)));
    if (!last || aborted) return;
    const body = JSON.parse(Buffer.concat(chunks).toString());
    const channels = body.channels ?? [body.channel];
    for (const channel of channels) app.publish(channel, frame(body.name, channel, body.data));
    res.cork(() => res.writeHeader('content-type', 'application/json').end('{}'));
  });
});
app.any('/*', (res) => {
  res.end('OK');
});

app.listen('127.0.0.1', port, (socket) => {
  if (!socket) {
    console.error(`ceiling: cannot listen on ${port}`);
    process.exit(1);
  }
  console.log(
    `ceiling listening on 127.0.0.1:${uws.us_socket_local_port(socket)} (${load.uws.source}, Node ${process.versions.node})`,
  );
});
// Exit (rather than die of the signal) on the bench's SIGTERM, so `--cpu-prof` writes its profile.
process.on('SIGTERM', () => process.exit(0));
