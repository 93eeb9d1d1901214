// One load process: many plain `ws` clients speaking the raw Pusher protocol, driven by its parent over IPC.
//   parent -> {type:'setup', role, ...}  worker opens its sockets and answers {type:'ready', connected, failed}
//   parent -> {type:'start'}             counters reset; traffic starts (pairs, presence); progress every 20 ms
//   parent -> {type:'stop'}              traffic stops; answers {type:'stopped'} once nothing is in flight
//   parent -> {type:'collect'}           answers {type:'result', ...counters, histogram}
//   parent -> {type:'close'}             closes every socket and exits
// Roles: `subscribe` (idle and fan-out subscribers), `pairs` (client events between two sockets of a private
// channel), `presence` (watchers that stay, churners that join and leave a presence channel in a loop).
// Data frames carry `@<microseconds>` (the system-wide monotonic clock) so any receiver can time them.
import { signChannelAuth } from '@herald/protocol-core';
import WebSocket from 'ws';
import { Histogram, nowMicros } from './histogram.mjs';

const AT = 64; // '@'
const EVENT = /"event":"([^"]+)"/;
let config;
let sockets = [];
let histogram = new Histogram();
let joinHistogram = new Histogram();
let counters = freshCounters();
let running = false;
let progressTimer;
let closing = false;
let stopPending = false;

function freshCounters() {
  return { received: 0, sent: 0, joins: 0, memberAdded: 0, errors: 0, closedEarly: 0, sendErrors: 0 };
}

function send(message) {
  if (process.connected) process.send(message);
}

/** Reads the `@<micros>` stamp of a data frame, or -1 when the frame carries none (a control frame). */
function stampOf(buffer) {
  const at = buffer.indexOf(AT);
  if (at < 0) return -1;
  let value = 0;
  for (let i = at + 1; i < buffer.length; i++) {
    const digit = buffer[i] - 48;
    if (digit < 0 || digit > 9) break;
    value = value * 10 + digit;
  }
  return value;
}

function connectOne(index) {
  return new Promise((resolve) => {
    const ws = new WebSocket(config.url, {
      perMessageDeflate: false,
      skipUTF8Validation: true,
      handshakeTimeout: 30_000,
      ...(config.localAddress ? { localAddress: config.localAddress } : {}),
    });
    const state = { ws, index, socketId: undefined, subscribed: false, resolve, settled: false };
    const settle = (ok, why) => {
      if (state.settled) return;
      state.settled = true;
      if (!ok) {
        counters.errors++;
        if (counters.errors <= 3) send({ type: 'log', message: `socket ${index}: ${why}` });
      }
      resolve(ok ? state : undefined);
    };
    state.settle = settle;
    wire(state);
    ws.on('message', (data) => onMessage(state, data));
    ws.on('error', (error) => settle(false, error.message));
    ws.on('close', (code) => {
      if (!closing) counters.closedEarly++;
      settle(false, `closed ${code}`);
    });
  });
}

function subscribeFrame(state, channel, channelData) {
  const data = { channel };
  if (channel.startsWith('private-') || channel.startsWith('presence-')) {
    data.auth = signChannelAuth(config.app, { socketId: state.socketId, channel, channelData });
    if (channelData !== undefined) data.channel_data = channelData;
  }
  return JSON.stringify({ event: 'pusher:subscribe', data });
}

function onMessage(state, buffer) {
  const stamp = stampOf(buffer);
  if (stamp >= 0) {
    // Counted whether or not traffic is still being generated, so frames in flight at `stop` still count.
    counters.received++;
    histogram.record(nowMicros() - stamp);
    if (state.onData) state.onData(buffer);
    return;
  }
  // Control frames: read the event name from the head of the frame, and parse JSON only where needed, so the
  // load side spends little on presence storms (member_added/removed to every member).
  const event =
    EVENT.exec(buffer.toString('latin1', 0, Math.min(buffer.length, 120)))?.[1] ?? JSON.parse(buffer).event;
  switch (event) {
    case 'pusher:connection_established': {
      state.socketId = JSON.parse(JSON.parse(buffer.toString()).data).socket_id;
      state.onConnected();
      break;
    }
    case 'pusher_internal:subscription_succeeded':
      if (state.onSubscribed) state.onSubscribed();
      break;
    case 'pusher_internal:member_added':
      if (state.watcher) counters.memberAdded++;
      break;
    case 'pusher:ping':
      state.ws.send('{"event":"pusher:pong","data":{}}');
      break;
    case 'pusher:error':
      // 4200: the server is shutting down at the end of a run.
      if (/"code":4200/.test(buffer)) break;
      counters.errors++;
      if (counters.errors <= 3) send({ type: 'log', message: `socket ${state.index}: ${buffer}` });
      break;
    case 'pusher:subscription_error':
      counters.errors++;
      if (counters.errors <= 3) send({ type: 'log', message: `socket ${state.index}: ${buffer}` });
      break;
    default:
      break;
  }
}

function wire(state) {
  const i = state.index;
  if (config.role === 'subscribe') {
    const channel = config.channelModulo
      ? `${config.channel}${(config.offset + i) % config.channelModulo}`
      : config.channel;
    state.onConnected = () => state.ws.send(subscribeFrame(state, channel));
    state.onSubscribed = () => state.settle(true);
  } else if (config.role === 'pairs') {
    // Sockets 2k and 2k+1 share private-pair-<worker>-<k>.
    const channel = `private-pair-${config.worker}-${Math.floor(i / 2)}`;
    state.channel = channel;
    state.inFlight = 0;
    state.onConnected = () => state.ws.send(subscribeFrame(state, channel));
    state.onSubscribed = () => state.settle(true);
    state.onData = () => {
      const sender = state.partner;
      if (!sender) return;
      sender.inFlight--;
      if (running) pump(sender);
      else maybeStopped();
    };
  } else if (config.role === 'presence') {
    state.watcher = i < config.watchers;
    state.seq = 0;
    state.onConnected = () => {
      if (state.watcher)
        state.ws.send(subscribeFrame(state, config.channel, memberData(`w-${config.worker}-${i}`)));
      else state.settle(true);
    };
    state.onSubscribed = () => {
      if (state.watcher) {
        state.settle(true);
        return;
      }
      counters.joins++;
      joinHistogram.record(nowMicros() - state.joinStarted);
      state.ws.send(`{"event":"pusher:unsubscribe","data":{"channel":"${config.channel}"}}`);
      state.joining = false;
      if (running) join(state);
      else maybeStopped();
    };
  }
}

function memberData(userId) {
  return JSON.stringify({ user_id: userId, user_info: { name: userId } });
}

function join(state) {
  state.joining = true;
  state.seq++;
  state.joinStarted = nowMicros();
  state.ws.send(
    subscribeFrame(state, config.channel, memberData(`c-${config.worker}-${state.index}-${state.seq}`)),
  );
}

function pump(state) {
  while (state.inFlight < config.window) {
    state.inFlight++;
    counters.sent++;
    state.ws.send(`{"event":"client-m","channel":"${state.channel}","data":{"m":"@${nowMicros()}"}}`);
  }
}

function maybeStopped() {
  if (config.role === 'presence' && sockets.some((s) => s?.joining)) return;
  if (config.role === 'pairs' && sockets.some((s) => s && s.inFlight > 0)) return;
  if (stopPending) {
    stopPending = false;
    send({ type: 'stopped' });
  }
}

async function setup(message) {
  config = message;
  const count = config.count;
  const opened = new Array(count);
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      opened[i] = await connectOne(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(config.concurrency ?? 50, count) }, lane));
  sockets = opened;
  if (config.role === 'pairs') {
    for (let k = 0; k + 1 < count; k += 2) {
      const a = sockets[k];
      const b = sockets[k + 1];
      if (a && b) {
        a.partner = b;
        b.partner = a;
      }
    }
  }
  send({
    type: 'ready',
    connected: sockets.filter(Boolean).length,
    failed: count - sockets.filter(Boolean).length,
  });
}

function reset() {
  counters = freshCounters();
  histogram = new Histogram();
  joinHistogram = new Histogram();
  send({ type: 'reset' });
}

function start() {
  running = true;
  progressTimer = setInterval(() => send({ type: 'progress', received: counters.received }), 20);
  if (config.role === 'pairs') for (const state of sockets) if (state?.partner) pump(state);
  if (config.role === 'presence') for (const state of sockets) if (state && !state.watcher) join(state);
}

function stop() {
  running = false;
  clearInterval(progressTimer);
  stopPending = true;
  maybeStopped();
}

process.on('message', (message) => {
  switch (message.type) {
    case 'setup':
      setup(message).catch((error) => send({ type: 'log', message: String(error?.stack ?? error) }));
      break;
    case 'reset':
      reset();
      break;
    case 'start':
      start();
      break;
    case 'stop':
      stop();
      break;
    case 'collect':
      send({
        type: 'result',
        ...counters,
        histogram: histogram.toJSON(),
        joinHistogram: joinHistogram.toJSON(),
      });
      break;
    case 'close':
      closing = true;
      for (const state of sockets) state?.ws.terminate();
      setTimeout(() => process.exit(0), 50);
      break;
    default:
      break;
  }
});

process.on('disconnect', () => process.exit(0));
