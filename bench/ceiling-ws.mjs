// The bare-ws ceiling: the least a Pusher-protocol server on Node's http and the `ws` package can do, beside
// ceiling.mjs's bare uWebSockets.js one, so the portable transport is measured against what node:http + ws can
// reach on this machine. No validation, no signatures, no limits, no metrics. A broadcast is framed once: the
// Pusher frame is encoded to one Buffer and each subscriber's socket sends that Buffer (ws frames it without a
// copy). Subscribe = a Set per channel; client events = the same, sender excluded; REST trigger = JSON.parse the
// body + one broadcast per channel; presence = ceiling.mjs's rosters. A subscriber more than 1 MiB behind loses
// frames, as with uWS's maxBackpressure.
// Usage: node ceiling-ws.mjs <port>
import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';
import {
  connectionEstablished,
  createPresence,
  dispatchFrame,
  frame,
  subscribed,
} from './lib/ceiling-protocol.mjs';

const MAX_BACKPRESSURE = 1024 * 1024;
const port = Number(process.argv[2] ?? 0);
const presence = createPresence();
const topics = new Map(); // channel -> Set(ws)
let nextId = 1;

function publish(channel, text, except) {
  const members = topics.get(channel);
  if (!members) return;
  const bytes = Buffer.from(text);
  for (const socket of members) {
    if (socket !== except && socket.bufferedAmount <= MAX_BACKPRESSURE) socket.send(bytes);
  }
}

function subscribe(ws, channel) {
  let members = topics.get(channel);
  if (!members) {
    members = new Set();
    topics.set(channel, members);
  }
  members.add(ws);
  ws.state.channels.add(channel);
}

function leave(ws, channel) {
  const members = topics.get(channel);
  members?.delete(ws);
  if (members?.size === 0) topics.delete(channel);
  ws.state.channels.delete(channel);
  const userId = ws.state.members.get(channel);
  if (userId === undefined) return;
  ws.state.members.delete(channel);
  const removed = presence.leave(channel, userId);
  if (removed) publish(channel, removed);
}

const ops = {
  subscribe(ws, channel, channelData) {
    subscribe(ws, channel);
    if (!channel.startsWith('presence-')) {
      ws.send(subscribed(channel));
      return;
    }
    const joined = presence.join(channel, channelData);
    ws.state.members.set(channel, joined.userId);
    if (joined.added) publish(channel, joined.added, ws);
    ws.send(joined.succeeded);
  },
  unsubscribe: leave,
  send: (ws, text) => ws.send(text),
  clientEvent: (ws, channel, text) => publish(channel, text, ws),
};

const wss = new WebSocketServer({
  noServer: true,
  perMessageDeflate: false,
  clientTracking: false,
  maxPayload: 1024 * 1024,
});

const server = createServer((req, res) => {
  if (req.method !== 'POST' || !/^\/apps\/[^/]+\/events/.test(req.url ?? '')) {
    res.end('OK');
    return;
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString());
    for (const channel of body.channels ?? [body.channel])
      publish(channel, frame(body.name, channel, body.data));
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});

server.on('upgrade', (req, socket, head) => {
  wss.handleUpgrade(req, socket, head, (ws) => {
    ws.state = { socketId: `${process.pid}.${nextId++}`, channels: new Set(), members: new Map() };
    ws.on('message', (message) => dispatchFrame(ws, message.toString(), ops));
    ws.on('close', () => {
      for (const channel of [...ws.state.channels]) leave(ws, channel);
    });
    ws.on('error', () => ws.terminate());
    ws.send(connectionEstablished(ws.state.socketId));
  });
});

server.listen(port, '127.0.0.1', () => {
  console.log(
    `ceiling-ws listening on 127.0.0.1:${server.address().port} (ws, Node ${process.versions.node})`,
  );
});
// Exit (rather than die of the signal) on the bench's SIGTERM, so `--cpu-prof` writes its profile.
process.on('SIGTERM', () => process.exit(0));
