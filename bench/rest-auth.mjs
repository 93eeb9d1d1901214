// In-process micro-benchmark of the REST trigger fast path: the same SDK-shaped triggers authenticated by
// `Authorization: Bearer` and by the SDK's query signature, alternating rounds, no sockets. The end-to-end figures
// (`run.mjs --only rest-bearer,rest-signed`) depend on a quiet machine; this one isolates the server's cost of each
// kind of auth per request.
//
// Usage: node bench/rest-auth.mjs [--rounds 20] [--per-round 10000] [--pool 4096]
import { parseArgs } from 'node:util';
import { createFastTrigger } from '@herald/http-api';
import { sdkTriggerPool } from './lib/load.mjs';
import { APP } from './lib/targets.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '20' },
    'per-round': { type: 'string', default: '10000' },
    pool: { type: 'string', default: '4096' },
  },
});
const rounds = Number(values.rounds);
const perRound = Number(values['per-round']);
const poolSize = Number(values.pool);

const app = { id: APP.id, key: APP.key, secret: APP.secret, enabled: true, allowedOrigins: ['*'] };
let published = 0;
const backend = {
  publish: () => {
    published++;
  },
};
const fast = createFastTrigger({ apps: [app], backend });
if (!fast) throw new Error('no fast path');

/** A flat copy of a string, as a server hands over each request's own (never a slice of a longer string). */
const own = (text) => Buffer.from(text, 'latin1').toString('latin1');

/**
 * The pool as the HTTP bridge hands requests to the fast path: raw path, raw query, lower-case headers, bytes,
 * every string the request's own and flat, as uWebSockets.js gives them (a slice of a shared string, or one path
 * string shared by every request, would make one kind of auth look cheaper than it is).
 */
function rawPool(auth) {
  return sdkTriggerPool('rest-empty', poolSize, auth).map((request) => {
    const at = request.path.indexOf('?');
    const headers = {};
    for (const [name, value] of Object.entries(request.headers)) headers[own(name)] = own(value);
    return {
      method: own(request.method),
      path: own(at < 0 ? request.path : request.path.slice(0, at)),
      query: own(at < 0 ? '' : request.path.slice(at + 1)),
      headers,
      body: Buffer.from(request.body),
    };
  });
}

const pools = { bearer: rawPool('bearer'), signed: rawPool('signed') };

// CPU time rather than wall time: on a shared machine the process is descheduled at random, and CPU time leaves
// those gaps out.
function runRound(pool) {
  const t0 = process.cpuUsage();
  for (let i = 0; i < perRound; i++) {
    const answer = fast(pool[i % pool.length]);
    if (answer === undefined || answer.status !== 200) throw new Error('the fast path did not answer 200');
  }
  const used = process.cpuUsage(t0);
  return ((used.user + used.system) * 1000) / perRound;
}

const times = { bearer: [], signed: [] };
runRound(pools.bearer); // warm-up
runRound(pools.signed);
for (let round = 0; round < rounds; round++) {
  // Alternate which goes first, so drift in machine load falls on both.
  const order = round % 2 === 0 ? ['bearer', 'signed'] : ['signed', 'bearer'];
  for (const kind of order) times[kind].push(runRound(pools[kind]));
}
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const bearer = median(times.bearer);
const signed = median(times.signed);
console.log(
  JSON.stringify({
    bearer_cpu_ns_per_req: Math.round(bearer),
    signed_cpu_ns_per_req: Math.round(signed),
    signed_over_bearer: Number((signed / bearer).toFixed(2)),
    published,
  }),
);
