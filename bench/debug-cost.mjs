// In-process micro-benchmark of the debug-event port on the publish path: `server.publish` to channels with no
// subscribers, CPU time per call with nobody watching and with a console-like listener on the app (every record
// serialised, as the console's SSE stream does), alternating rounds. The end-to-end figures (`run.mjs --console`)
// depend on a quiet machine; this one isolates what the port adds per publish.
//
// Usage: node bench/debug-cost.mjs [--rounds 10] [--per-round 100000]
import { parseArgs } from 'node:util';
import { createRealtimeServer } from '@herald/realtime-server';
import { APP } from './lib/targets.mjs';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '10' }, 'per-round': { type: 'string', default: '100000' } },
});
const rounds = Number(values.rounds);
const perRound = Number(values['per-round']);

const server = createRealtimeServer({ apps: [APP], processMetrics: false, transport: 'portable' });
const request = { channels: ['orders'], event: 'order-created', data: '{"id":42,"total":"19.90"}' };
let bytes = 0;

/** CPU microseconds per publish over one round. */
function round() {
  const start = process.cpuUsage();
  for (let i = 0; i < perRound; i++) server.publish(APP.id, request);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / perRound;
}

const figures = { none: [], watching: [] };
round(); // warm-up
for (let r = 0; r < rounds; r++) {
  figures.none.push(round());
  const stop = server.debug.subscribe(APP.id, (record) => {
    bytes += JSON.stringify(record).length;
  });
  figures.watching.push(round());
  stop();
}
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const none = median(figures.none);
const watching = median(figures.watching);
console.log(
  JSON.stringify({
    rounds,
    per_round: perRound,
    us_per_publish_nobody_watching: Number(none.toFixed(3)),
    us_per_publish_console_watching: Number(watching.toFixed(3)),
    ratio: Number((none / watching).toFixed(3)),
    serialised_bytes: bytes,
  }),
);
await server.close();
