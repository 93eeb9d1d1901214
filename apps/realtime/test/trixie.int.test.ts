import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { until } from '@herald/test-kit';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runOn } from './node-lines.js';
import { pusherJsClient } from './pusher-client.js';
import { pusherSdk } from './pusher-sdk.js';
import { type RunningBin, startBin } from './run-bin.js';

// Issue 30: the Dockerfile's default base, node:22-trixie-slim, is Debian 13, where the bundled native
// uWebSockets.js build (@btc-vision, glibc ≥ 2.38) loads on Node 22 and 24. No container runtime runs here, so this
// checks it in a real Debian 13 userland: deploy/check/trixie.sh's debootstrap root, with Node 22 and 24 run in it by
// chroot (deploy/check/trixie-node22, trixie-node24) on this repository's built bin, unchanged.
//
// Building the root downloads Debian 13's minimal base (about 32 MB) and took 40–110 s here, with the machine quiet or
// busy (deploy/README.md), too long for CI's budget: the suite runs when the root is cached already (then it takes
// seconds) or when HERALD_TRIXIE=1 asks to build it. It runs once per test run: in the `realtime-app` project on the
// machine's own Node (the Node lines it checks are the ones it starts in the root, whatever Node vitest runs on).

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SCRIPT = join(ROOT, 'deploy/check/trixie.sh');
const ABI: Record<string, string> = { '22': '127', '24': '137' };
const DEMO = { id: 'herald-demo', key: 'herald-demo-key', secret: 'herald-demo-secret' };

/** Why the suite does not run here, or undefined when it does. */
function skipReason(): string | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0)
    return 'needs root on Linux (debootstrap, mount, chroot)';
  if (process.env.REALTIME_TRANSPORT) return 'runs once, in the realtime-app project';
  const machineNode = execFileSync('node', ['-p', 'process.execPath'], { encoding: 'utf8' }).trim();
  if (realpathSync(machineNode) !== realpathSync(process.execPath))
    return "runs once, on the machine's own Node (it starts Node 22 and 24 itself)";
  const built = spawnSync('bash', [SCRIPT, 'status'], { stdio: 'ignore' }).status === 0;
  if (!built && process.env.HERALD_TRIXIE !== '1')
    return 'no Debian 13 root is cached: HERALD_TRIXIE=1 builds one (about a minute), or `deploy/check/trixie.sh root`';
  return undefined;
}

/** Runs `trixie.sh root`: at once when the root is cached, a debootstrap run otherwise. */
function buildRoot(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [SCRIPT, 'root'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`trixie.sh root: ${code}\n${stderr}`)),
    );
  });
}

const skipped = skipReason();

describe.skipIf(skipped !== undefined)(
  `Debian 13 "trixie" (the image's default base)${skipped ? `: skipped, ${skipped}` : ''}`,
  () => {
    let bin: RunningBin | undefined;
    // The server's working folder, under /tmp: mounted in the root at the same path.
    let cwd: string | undefined;

    // debootstrap when HERALD_TRIXIE=1 and nothing is cached; the limit only stops a run that hangs.
    beforeAll(buildRoot, 1_200_000);

    afterEach(async () => {
      await bin?.stop();
      bin = undefined;
      if (cwd) rmSync(cwd, { recursive: true, force: true });
      cwd = undefined;
    });

    describe.each(['22', '24'])('on Node %s', (major) => {
      const node = join(ROOT, `deploy/check/trixie-node${major}`);

      it('`realtime transport` says the bundled build loads on glibc 2.41, and --expect uws passes', async () => {
        const result = await runOn(node, ['transport', '--expect', 'uws']);
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
        const lines = result.stdout.split('\n');
        expect(lines[0]).toMatch(
          new RegExp(
            `^Native transport check: Node ${major}\\.\\d+\\.\\d+ \\(ABI ${ABI[major]}\\) on linux-x64, glibc 2\\.41$`,
          ),
        );
        expect(lines).toContain(
          '  2. [yes] @btc-vision/uwebsockets.js@20.57.0: loads: the server runs this build (uws)',
        );
        expect(result.stdout).toContain(
          'Result: `realtime server` runs the uws transport (native, from @btc-vision/uwebsockets.js@20.57.0) here',
        );
      });

      it('`realtime server` starts on uws, and a pusher-js client receives an event', async () => {
        cwd = mkdtempSync('/tmp/herald-trixie-');
        bin = await startBin([], { node, cwd, timeoutMs: 90_000 });
        expect(bin.stdout).toMatch(
          /^Transport: uws \(native uWebSockets\.js from @btc-vision\/uwebsockets\.js@20\.57\.0\)/m,
        );
        const client = pusherJsClient(bin.port, DEMO.key);
        try {
          const received: unknown[] = [];
          const channel = client.subscribe('trixie');
          channel.bind('built', (data: unknown) => received.push(data));
          let subscribed = false;
          channel.bind('pusher:subscription_succeeded', () => (subscribed = true));
          await until(() => subscribed, { what: 'the subscription to "trixie"' });
          await pusherSdk(DEMO, bin.port).trigger('trixie', 'built', { glibc: '2.41', node: major });
          await until(() => received.length > 0, { what: 'the "built" event' });
          expect(received).toEqual([{ glibc: '2.41', node: major }]);
        } finally {
          client.disconnect();
        }
      });
    });
  },
);
