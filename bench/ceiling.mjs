// The ceiling: the least a Pusher-protocol server on uWebSockets.js can do, so the figures show what Node + uWS
// can reach on this machine. No validation, no signatures, no limits, no metrics: subscribe = ws.subscribe,
// client events = ws.publish (sender excluded), REST trigger = JSON.parse the body + app.publish of one frame,
// presence = a user count per channel and member_added/removed published to the topic.
// Usage: node ceiling.mjs <port>
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const uws = require('uWebSockets.js');
const port = Number(process.argv[2] ?? 0);
const decoder = new TextDecoder();
const presence = new Map(); // channel -> Map(user_id -> { info, sockets })
let nextId = 1;

function frame(event, channel, data) {
  return JSON.stringify(channel === undefined ? { event, data } : { event, channel, data });
}

function join(ws, channel, channelData) {
  const member = JSON.parse(channelData);
  const userId = String(member.user_id);
  let members = presence.get(channel);
  if (!members) {
    members = new Map();
    presence.set(channel, members);
  }
  const existing = members.get(userId);
  if (existing) existing.sockets++;
  else members.set(userId, { info: member.user_info, sockets: 1 });
  ws.getUserData().members.set(channel, userId);
  // uWS only publishes from a socket that has a subscription, so subscribe first (publish excludes the sender).
  ws.subscribe(channel);
  if (!existing) ws.publish(channel, frame('pusher_internal:member_added', channel, JSON.stringify(member)));
  const hash = {};
  for (const [id, value] of members) hash[id] = value.info ?? null;
  const roster = { presence: { count: members.size, ids: [...members.keys()], hash } };
  ws.send(frame('pusher_internal:subscription_succeeded', channel, JSON.stringify(roster)));
}

function leave(ws, channel) {
  ws.unsubscribe(channel);
  const userId = ws.getUserData().members.get(channel);
  if (userId === undefined) return;
  ws.getUserData().members.delete(channel);
  const members = presence.get(channel);
  const entry = members?.get(userId);
  if (!entry) return;
  if (--entry.sockets > 0) return;
  members.delete(userId);
  app.publish(channel, frame('pusher_internal:member_removed', channel, JSON.stringify({ user_id: userId })));
}

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
    const data = JSON.stringify({ socket_id: ws.getUserData().socketId, activity_timeout: 120 });
    ws.send(frame('pusher:connection_established', undefined, data));
  },
  message: (ws, message) => {
    const parsed = JSON.parse(decoder.decode(message));
    const { event, data } = parsed;
    if (event === 'pusher:subscribe') {
      if (data.channel.startsWith('presence-')) join(ws, data.channel, data.channel_data);
      else {
        ws.subscribe(data.channel);
        ws.send(frame('pusher_internal:subscription_succeeded', data.channel, '{}'));
      }
    } else if (event === 'pusher:unsubscribe') {
      leave(ws, data.channel);
    } else if (event === 'pusher:ping') {
      ws.send('{"event":"pusher:pong","data":"{}"}');
    } else if (event.startsWith('client-')) {
      ws.publish(parsed.channel, frame(event, parsed.channel, data));
    }
  },
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
  console.log(`ceiling listening on 127.0.0.1:${uws.us_socket_local_port(socket)}`);
});
