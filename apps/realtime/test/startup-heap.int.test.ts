import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningBin, startBin } from './run-bin.js';

// What V8's young generation is when the server starts serving, read from the server's own /metrics (prom-client's
// heap space gauge: both semi-spaces). Held at its smallest while the app loads, it is 1–2 MiB; left to V8, start-up's
// survivors grew it to 16 MiB, and the first burst of connections doubled that (see src/startup-heap.ts). The size
// follows from what survives start-up, not from how fast the machine is.

const MiB = 1024 * 1024;

async function youngGeneration(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const line = /^herald_nodejs_heap_space_size_total_bytes\{space="new"\} (\d+)$/m.exec(text);
  if (!line) throw new Error(`no new-space gauge in /metrics:\n${text.slice(0, 500)}`);
  return Number(line[1]);
}

// Start-up is the same on both transports: once is enough.
describe.skipIf(process.env.REALTIME_TRANSPORT === 'portable')('a started server', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'herald-startup-heap-'));
  const running: RunningBin[] = [];
  afterAll(async () => {
    await Promise.all(running.map((bin) => bin.stop()));
    rmSync(cwd, { recursive: true, force: true });
  });

  it("serves with V8's young generation at its smallest, and as V8 sizes it when the operator sizes it", async () => {
    const [held, sized] = await Promise.all([
      startBin([], { cwd }),
      // Any semi-space flag of the operator's leaves V8's sizing alone: the same start-up then grows it.
      startBin([], { cwd, env: { NODE_OPTIONS: '--max-semi-space-size=16' } }),
    ]);
    running.push(held, sized);
    expect(await youngGeneration(held.port)).toBeLessThanOrEqual(4 * MiB);
    expect(await youngGeneration(sized.port)).toBeGreaterThan(4 * MiB);
  });
});
