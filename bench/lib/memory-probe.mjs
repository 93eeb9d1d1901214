// Preloaded into a target (`node --import …/memory-probe.mjs`) by bench/idle-memory.mjs: on SIGWINCH it appends one
// JSON line to $HERALD_MEMORY_PROBE with the process's memory as V8 sees it (RSS, each heap space's reserved, used and
// resident bytes); on SIGUSR2 it collects garbage first, then appends the line, so the driver reads what was there at
// its mark and what of it was live. Nothing runs until a signal comes; the servers use neither signal.
import { appendFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const file = process.env.HERALD_MEMORY_PROBE;

function record(label) {
  const spaces = {};
  for (const space of getHeapSpaceStatistics()) {
    spaces[space.space_name] = {
      size: space.space_size,
      used: space.space_used_size,
      physical: space.physical_space_size,
    };
  }
  const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
  appendFileSync(
    file,
    `${JSON.stringify({ label, at: Date.now(), rss, heapTotal, heapUsed, external, arrayBuffers, spaces })}\n`,
  );
}

function collect() {
  // As apps/realtime/src/startup-heap.ts does: `gc` from a fresh context while --expose-gc is briefly on.
  setFlagsFromString('--expose-gc');
  try {
    runInNewContext('gc')();
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

// With $HERALD_MEMORY_PROBE_ALLOCATIONS set, V8's sampling heap profiler runs from the first mark to the collection,
// counting objects collected meanwhile too (every allocation, not only what survived), and its profile is written
// to that file: where the garbage of a burst of connections comes from.
const allocations = process.env.HERALD_MEMORY_PROBE_ALLOCATIONS;
let session;

function startSampling() {
  session = new Session();
  session.connect();
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 1024,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
}

function stopSampling() {
  session?.post('HeapProfiler.stopSampling', (error, result) => {
    if (!error) writeFileSync(allocations, JSON.stringify(result.profile));
    session.disconnect();
  });
}

if (file) {
  let marks = 0;
  process.on('SIGWINCH', () => {
    record('mark');
    marks += 1;
    if (allocations && marks === 1) startSampling();
  });
  process.on('SIGUSR2', () => {
    if (allocations) stopSampling();
    collect();
    record('collected');
  });
}
