import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeOf, runOn as run, spawnOn } from './node-lines.js';

// `realtime transport` and the start-up banner, run from the built bin on each Node line, as a user reads them.
// Which build loads depends on the machine's glibc: the bundled @btc-vision build needs glibc 2.38, the bundled
// @trufflesuite one has Node ≤ 20 builds that load on older glibc. The expectations follow this machine's glibc, so
// on Debian 12 (glibc 2.36) Node 20 runs native and Node 22 and 24 fall back to portable with the glibc reason named.

const GLIBC_SYMBOLS = '__isoc23_sscanf, __isoc23_strtol, __isoc23_strtoul';
const glibc = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header
  ?.glibcVersionRuntime;
const newGlibc = glibc !== undefined && Number(glibc.split('.')[1]) >= 38;
const ABI: Record<string, string> = { '20': '115', '22': '127', '24': '137' };

/** Starts `realtime server` on a Node binary, reads its banner, and stops it. */
function banner(node: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const { child, output } = spawnOn(node, ['server', '--port', '0', '--host', '127.0.0.1'], env);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no banner:\n${output.stdout}\n${output.stderr}`));
    }, 90_000);
    child.stdout?.on('data', () => {
      if (!output.stdout.includes('REST API')) return;
      clearTimeout(timer);
      child.once('exit', () => resolve(output.stdout));
      child.kill('SIGTERM');
    });
    child.once('exit', (code) => {
      if (!output.stdout.includes('REST API'))
        reject(new Error(`exited with ${code}:\n${output.stdout}\n${output.stderr}`));
    });
  });
}

/** A `uWebSockets.js` package the loader finds first (through NODE_PATH), with the given files. */
function fakeOfficialBuild(files: Record<string, string>): NodeJS.ProcessEnv {
  const modules = mkdtempSync(join(tmpdir(), 'herald-fake-uws-'));
  const dir = join(modules, 'uWebSockets.js');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'uWebSockets.js', version: '20.57.0', main: 'uws.js' }),
  );
  writeFileSync(join(dir, 'uws.js'), 'module.exports = {};\n');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return { NODE_PATH: modules };
}

const candidateLines = (stdout: string) => stdout.split('\n').filter((line) => /^ {2}\d\. \[/.test(line));

describe('realtime transport on Node 20', () => {
  const node = nodeOf('20');

  it('names each candidate in the loader’s order and says the server runs native here', async () => {
    const result = await run(node, ['transport']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^Native transport check: Node 20\.\d+\.\d+ \(ABI 115\) on linux-x64, glibc \d/,
    );
    const [official, btc, truffle] = candidateLines(result.stdout);
    expect(official).toBe('  1. [no ] uWebSockets.js: not installed');
    if (newGlibc) {
      expect(btc).toBe(
        '  2. [yes] @btc-vision/uwebsockets.js@20.57.0: loads: the server runs this build (uws)',
      );
      expect(truffle).toContain('[no ] @trufflesuite/uws-js-unofficial@20.30.0-unofficial.0: not tried');
    } else {
      expect(btc).toBe(
        `  2. [no ] @btc-vision/uwebsockets.js@20.57.0: does not load: uws_linux_x64_115.node needs glibc 2.38 ` +
          `(for ${GLIBC_SYMBOLS}), and this system has glibc ${glibc}`,
      );
      expect(truffle).toBe(
        '  3. [yes] @trufflesuite/uws-js-unofficial@20.30.0-unofficial.0: loads: the server runs this build (uws)',
      );
    }
    expect(result.stdout).toContain('Result: `realtime server` runs the uws transport (native, from ');
    expect(result.stdout).not.toContain('For native speed');
  });

  it('exits 0 with --expect uws, 1 with --expect portable, and refuses a transport it does not know', async () => {
    expect((await run(node, ['transport', '--expect', 'uws'])).code).toBe(0);
    const portable = await run(node, ['transport', '--expect', 'portable']);
    expect(portable.code).toBe(1);
    expect(portable.stderr).toContain('expected the portable transport, but this machine runs uws');
    const unknown = await run(node, ['transport', '--expect', 'native']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('--expect: "native" is not a transport (uws or portable)');
  });

  it('prints the same check as JSON with --json', async () => {
    const result = await run(node, ['transport', '--json']);
    const parsed = JSON.parse(result.stdout) as { loaded?: string; candidates: Array<{ verdict: string }> };
    expect(parsed.loaded).toMatch(/@/);
    expect(parsed.candidates.map((candidate) => candidate.verdict)).toContain('loads');
  });

  it('says why an installed official build does not load (a file that is no shared object), and goes on', async () => {
    const env = fakeOfficialBuild({ 'uws_linux_x64_115.node': 'not a shared object\n' });
    const result = await run(node, ['transport'], env);
    const [official] = candidateLines(result.stdout);
    expect(official).toMatch(
      /^ {2}1\. \[no \] uWebSockets\.js@20\.57\.0: does not load: uws_linux_x64_115\.node: /,
    );
    expect(official).toMatch(/file too short|invalid ELF header/);
    expect(result.stdout).toContain('Result: `realtime server` runs the uws transport');
  });

  it('says which Node lines an installed build has when it has none for this one', async () => {
    const env = fakeOfficialBuild({ 'uws_linux_x64_999.node': '' });
    const result = await run(node, ['transport'], env);
    expect(candidateLines(result.stdout)[0]).toBe(
      '  1. [no ] uWebSockets.js@20.57.0: has no build for Node 20 (ABI 115) on linux-x64; ' +
        'it has builds for Node ABI 999',
    );
  });

  it('does not point to the check in the banner when native runs, nor when the config asks for portable', async () => {
    const native = await banner(node);
    expect(native).toMatch(/^Transport: uws \(native uWebSockets\.js from /m);
    expect(native).not.toContain('realtime transport');
    const configured = await banner(node, { REALTIME_TRANSPORT: 'portable' });
    expect(configured).toContain('Transport: portable (node:http), as configured');
    expect(configured).not.toContain('realtime transport');
  });
});

describe.each(['22', '24'])('realtime transport on Node %s', (major) => {
  const node = nodeOf(major);
  const abi = ABI[major] as string;

  it.runIf(!newGlibc)(
    'names the glibc the bundled build needs, and what to install or run instead',
    async () => {
      const result = await run(node, ['transport']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`Node ${major}.`);
      expect(candidateLines(result.stdout)).toEqual([
        '  1. [no ] uWebSockets.js: not installed',
        `  2. [no ] @btc-vision/uwebsockets.js@20.57.0: does not load: uws_linux_x64_${abi}.node needs glibc 2.38 ` +
          `(for ${GLIBC_SYMBOLS}), and this system has glibc ${glibc}`,
        `  3. [no ] @trufflesuite/uws-js-unofficial@20.30.0-unofficial.0: has no build for Node ${major} (ABI ${abi}) ` +
          'on linux-x64; it has builds for Node 16 (ABI 93), Node 18 (ABI 108), Node 20 (ABI 115)',
      ]);
      expect(result.stdout).toContain(
        'Result: no native build loads here; `realtime server` runs the portable transport',
      );
      const advice = result.stdout.slice(result.stdout.indexOf('For native speed:'));
      expect(advice).toContain(
        `Run on glibc ≥ 2.38 (Debian 13 "trixie", Ubuntu 24.04, Fedora 39 or newer; as a container, \`node:${major}-trixie-slim\`)`,
      );
      expect(advice).toContain(
        'Or run Node 20 (ABI 115) here: @trufflesuite/uws-js-unofficial@20.30.0-unofficial.0',
      );
      expect(advice).toContain('`npm install uWebSockets.js@github:uNetworking/uWebSockets.js#v20.57.0`');
      expect(advice).toContain('deploy/Dockerfile) is built on node:22-trixie-slim by default');
      expect((await run(node, ['transport', '--expect', 'uws'])).code).toBe(1);
    },
  );

  it.runIf(!newGlibc)(
    'points to `realtime transport` from the banner when it falls back to portable',
    async () => {
      const stdout = await banner(node);
      const lines = stdout.split('\n');
      const at = lines.findIndex((line) => line.startsWith('Transport: '));
      expect(lines[at]).toMatch(
        /^Transport: portable \(node:http\): no native uWebSockets\.js build loads on Node /,
      );
      expect(lines[at + 1]).toBe(
        '  Run `realtime transport` to see why no native build loads here and what to install or run for native speed.',
      );
    },
  );

  it.runIf(newGlibc)('says the bundled build loads on this glibc', async () => {
    const result = await run(node, ['transport', '--expect', 'uws']);
    expect(result.code).toBe(0);
    expect(candidateLines(result.stdout)[1]).toBe(
      '  2. [yes] @btc-vision/uwebsockets.js@20.57.0: loads: the server runs this build (uws)',
    );
  });
});
