import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isRealtimeServerError, loadNativeUws } from '../src/index.js';
import { selectTransport } from '../src/transport/select.js';
import { RawClient, startServer, TEST_TRANSPORT } from './support.js';

const { platform, arch } = process;
const abi = process.versions.modules;
const nativeHere = loadNativeUws();

/** A project folder with one fake package in node_modules; returns a URL to resolve packages from. */
function projectWith(name: string, files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'herald-uws-'));
  const dir = join(root, 'node_modules', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '9.9.9', main: 'index.js' }));
  writeFileSync(join(dir, 'index.js'), 'module.exports = { App() {} };');
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return pathToFileURL(join(root, 'main.js')).href;
}

describe('the transport a server runs on', () => {
  it('is the one the test project asks for, and says why', async () => {
    const { server, stop } = await startServer();
    try {
      const expected = TEST_TRANSPORT === 'portable' || !nativeHere.ok ? 'portable' : 'uws';
      expect(server.transport.name).toBe(expected);
      expect(server.native).toBe(expected === 'uws');
      expect(server.transport.reason).toContain(`Node ${process.versions.node}`);
    } finally {
      await stop();
    }
  });

  it('serves the protocol and HTTP on the same port whichever it is', async () => {
    const { port, url, stop } = await startServer();
    try {
      const client = await RawClient.connect(url());
      expect(client.socketId).toMatch(/^\d+\.\d+$/);
      client.close();
      const answer = await fetch(`http://127.0.0.1:${port}/anything`);
      expect(answer.status).toBe(404);
      expect(await answer.json()).toEqual({ error: 'Not found' });
    } finally {
      await stop();
    }
  });
});

describe('selectTransport and the uWebSockets.js loader', () => {
  it.runIf(platform === 'linux' && arch === 'x64' && abi === '115')(
    'loads the bundled native build on Node 20 and runs uws, naming where the build came from',
    () => {
      const chosen = selectTransport('auto');
      expect(chosen.name).toBe('uws');
      expect(chosen.native).toBe(true);
      // In this workspace the bench's `uWebSockets.js` alias of the same package is hoisted, so either label is right.
      expect(chosen.reason).toMatch(
        /^uws \(native uWebSockets\.js from .*@trufflesuite\/uws-js-unofficial\)?@20\.30\.0/,
      );
    },
  );

  it.runIf(nativeHere.ok)(
    'prefers a build the user installed as uWebSockets.js (an npm alias here) over the bundled ones',
    () => {
      if (!nativeHere.ok) return;
      // The user's project: its own uWebSockets.js folder holding a native build (the one that loads here).
      const from = projectWith('uWebSockets.js', {});
      const dir = join(fileURLToPath(new URL('.', from)), 'node_modules', 'uWebSockets.js');
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({ name: 'uws-fork', version: '1.2.3', main: 'index.js' }),
      );
      copyFileSync(nativeHere.uws.binary, join(dir, `uws_${platform}_${arch}_${abi}.node`));
      const load = loadNativeUws(undefined, from);
      expect(load.ok && load.uws.source).toBe('uWebSockets.js (uws-fork)@1.2.3');
      expect(load.attempts).toEqual([]);
    },
  );

  it('runs the portable transport when no candidate is installed, and says what to install', () => {
    const chosen = selectTransport('auto', ['@herald/no-such-uws-build']);
    expect(chosen.name).toBe('portable');
    expect(chosen.native).toBe(false);
    expect(chosen.reason).toContain('no native uWebSockets.js build loads on Node');
    expect(chosen.reason).toContain('@herald/no-such-uws-build: not installed');
    expect(chosen.reason).toContain('uWebSockets.js@github:uNetworking/uWebSockets.js');
  });

  it('refuses transport "uws" when no build loads, with an error naming the fix', () => {
    let caught: unknown;
    try {
      selectTransport('uws', ['@herald/no-such-uws-build']);
    } catch (error) {
      caught = error;
    }
    expect(isRealtimeServerError(caught) && caught.code).toBe('transport_unavailable');
    expect((caught as Error).message).toContain('transport "uws" was asked for');
    expect((caught as Error).message).toContain('uWebSockets.js@github:uNetworking/uWebSockets.js');
    expect((caught as Error).message).toContain('"portable"');
  });

  it('runs portable when told to, without trying to load anything', () => {
    const chosen = selectTransport('portable', ['@herald/no-such-uws-build']);
    expect(chosen.name).toBe('portable');
    expect(chosen.reason).toContain('as configured');
  });

  it('passes over a package that has no build for this Node ABI', () => {
    const from = projectWith('fake-uws-old', { [`uws_${platform}_${arch}_1.node`]: '' });
    const load = loadNativeUws(['fake-uws-old'], from);
    expect(load.ok).toBe(false);
    expect(load.attempts).toEqual([
      {
        name: 'fake-uws-old',
        reason: `version 9.9.9 has no build for Node ABI ${abi} on ${platform}-${arch}`,
      },
    ]);
  });

  it('passes over a build that does not load here, with the loader error', () => {
    const from = projectWith('fake-uws-broken', {
      [`uws_${platform}_${arch}_${abi}.node`]: 'not a shared object',
    });
    const load = loadNativeUws(['fake-uws-broken', '@herald/no-such-uws-build'], from);
    expect(load.ok).toBe(false);
    expect(load.attempts[0]?.reason).toContain(
      `version 9.9.9: uws_${platform}_${arch}_${abi}.node does not load here`,
    );
    expect(load.attempts[1]).toEqual({ name: '@herald/no-such-uws-build', reason: 'not installed' });
  });

  it('never counts a package whose entry is JavaScript: only a native binary is loaded', () => {
    // index.js exports a JavaScript App (what a fallback emulation looks like); with no binary it is not loaded.
    const from = projectWith('fake-uws-fallback', {});
    const load = loadNativeUws(['fake-uws-fallback'], from);
    expect(load.ok).toBe(false);
    expect(load.attempts[0]?.reason).toContain('has no build for Node ABI');
  });
});

describe('frames on the wire', () => {
  it('are text frames, a topic publish too (a browser hands pusher-js a binary frame as a Blob it cannot parse)', async () => {
    const started = await startServer();
    try {
      const { client } = await RawClient.established(started.url());
      await client.subscribe('news');
      const binary: boolean[] = [];
      client.ws.on('message', (_raw, isBinary) => binary.push(isBinary));
      started.server.publish('app-1', { channels: ['news'], event: 'tick', data: '{}' });
      await client.next('tick');
      await client.roundTrip();
      // The event and the pong: both text.
      expect(binary).toEqual([false, false]);
      client.close();
    } finally {
      await started.stop();
    }
  });
});
