// In-process micro-benchmark of what channel history adds to one publish: the frame encoded once (history off)
// against the serial assigned, the frame encoded with it and kept in the memory history (history on), alternating
// rounds, no sockets. The end-to-end figures (`run.mjs --only fanout-1k,fanout-5k --targets
// herald,herald-history,…`) need a quiet machine; this one isolates the server's cost per event, which a fan-out
// to N subscribers pays once (not once per delivery).
//
// Usage: node bench/history-cost.mjs [--rounds 20] [--per-round 50000] [--channels 100]
import { parseArgs } from 'node:util';
import { encodeChannelEvent } from '@herald/protocol-core';
import { createMemoryHistory } from '@herald/realtime-server';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '20' },
    'per-round': { type: 'string', default: '50000' },
    channels: { type: 'string', default: '100' },
  },
});
const rounds = Number(values.rounds);
const perRound = Number(values['per-round']);
const channels = Array.from({ length: Number(values.channels) }, (_, i) => `orders-${i}`);
// The app's defaults: 100 events per channel, 300 s.
const limits = { maxEvents: 100, maxAgeMs: 300_000 };
const history = createMemoryHistory();
const data = JSON.stringify({ id: 123456, status: 'shipped', items: [1, 2, 3], note: 'x'.repeat(40) });
let sink = 0;

function off(count, offset) {
  for (let i = 0; i < count; i += 1) {
    const channel = channels[(i + offset) % channels.length];
    // The fan-out measures every frame (`Buffer.byteLength`, as the server's metrics do), which flattens it.
    sink += Buffer.byteLength(encodeChannelEvent({ event: 'order.updated', channel, data }));
  }
}

function on(count, offset) {
  for (let i = 0; i < count; i += 1) {
    const channel = channels[(i + offset) % channels.length];
    const message = { event: 'order.updated', channel, data };
    sink += history.append(
      'bench',
      channel,
      (position) => encodeChannelEvent(message, position),
      limits,
    ).length;
  }
}

/** CPU nanoseconds per event of one round. */
function measure(run, offset) {
  const start = process.cpuUsage();
  run(perRound, offset);
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / perRound;
}

// Warm both paths (and fill every channel's log to its bound, as a running server's would be).
off(perRound, 0);
on(Math.max(perRound, channels.length * limits.maxEvents * 2), 0);
const figures = { off: [], on: [] };
for (let round = 0; round < rounds; round += 1) {
  // Alternate which goes first, so a change in the machine's load hits both alike.
  const order = round % 2 === 0 ? ['off', 'on'] : ['on', 'off'];
  for (const name of order) figures[name].push(measure(name === 'off' ? off : on, round * perRound));
}
history.close();
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const offNs = median(figures.off);
const onNs = median(figures.on);
console.log(`channels ${channels.length}, ${rounds} rounds × ${perRound} events, median CPU per event:`);
console.log(`  history off (encode once):            ${offNs.toFixed(0)} ns`);
console.log(
  `  history on (serial, encode, keep):    ${onNs.toFixed(0)} ns  (+${(onNs - offNs).toFixed(0)} ns)`,
);
console.log(`  (checksum ${sink % 1000})`);
