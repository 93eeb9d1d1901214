import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadNativeUws } from '@herald/realtime-server';
import { until } from '@herald/test-kit';
import Pusher from 'pusher';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type PusherClient, pusherJsClient } from './pusher-client.js';
import { socket } from './raw-socket.js';
import { type RunningBin, runBin, startBin } from './run-bin.js';

const running: RunningBin[] = [];
// What the bin's loader will find on this Node: the same packages, resolved from the same place.
const nativeUws = loadNativeUws();
const clients: PusherClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.disconnect();
  await Promise.all(running.splice(0).map((bin) => bin.stop()));
});

async function start(args: string[] = [], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) {
  const bin = await startBin(args, { cwd: mkdtempSync(join(tmpdir(), 'herald-rt-')), ...options });
  running.push(bin);
  return bin;
}

function client(port: number, key: string, sdk?: Pusher): PusherClient {
  const pusher = pusherJsClient(port, key, sdk);
  clients.push(pusher);
  return pusher;
}

function subscribed(pusher: PusherClient, name: string) {
  const channel = pusher.subscribe(name);
  return new Promise<typeof channel>((resolve) =>
    channel.bind('pusher:subscription_succeeded', () => resolve(channel)),
  );
}

function nextEvent(channel: { bind(event: string, cb: (data: unknown) => void): void }, event: string) {
  return new Promise<unknown>((resolve) => channel.bind(event, resolve));
}

describe('realtime server (the bin)', () => {
  it('starts on embedded defaults and prints the WebSocket URL, the app key and the app secret', async () => {
    const bin = await start();
    expect(bin.stdout).toContain(`ws://127.0.0.1:${bin.port}/app/herald-demo-key`);
    expect(bin.stdout).toMatch(/App key:\s+herald-demo-key/);
    expect(bin.stdout).toMatch(/App secret:\s+herald-demo-secret/);
    expect(bin.stdout).toContain('config: embedded defaults');
  });

  it('delivers an event triggered with curl-style Bearer auth to a pusher-js subscriber', async () => {
    const bin = await start();
    const channel = await subscribed(client(bin.port, 'herald-demo-key'), 'news');
    const received = nextEvent(channel, 'hello');
    const response = await fetch(`http://127.0.0.1:${bin.port}/apps/herald-demo/events`, {
      method: 'POST',
      headers: { authorization: 'Bearer herald-demo-secret', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'hello', channel: 'news', data: '{"text":"Hi there"}' }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({});
    expect(await received).toEqual({ text: 'Hi there' });
  });

  it('works with the official pusher SDK, including end-to-end encrypted channels', async () => {
    const bin = await start();
    const sdk = new Pusher({
      appId: 'herald-demo',
      key: 'herald-demo-key',
      secret: 'herald-demo-secret',
      host: '127.0.0.1',
      port: String(bin.port),
      useTLS: false,
      encryptionMasterKeyBase64: Buffer.alloc(32, 3).toString('base64'),
    });
    const pusher = client(bin.port, 'herald-demo-key', sdk);
    const plain = await subscribed(pusher, 'private-orders');
    const vault = await subscribed(pusher, 'private-encrypted-vault');
    const order = nextEvent(plain, 'created');
    const secret = nextEvent(vault, 'opened');
    await sdk.trigger('private-orders', 'created', { id: 7 });
    await sdk.trigger('private-encrypted-vault', 'opened', { code: 'ä-1234' });
    expect(await order).toEqual({ id: 7 });
    expect(await secret).toEqual({ code: 'ä-1234' });
  });

  it('closes sockets with 4200 and exits 0 on SIGTERM', async () => {
    const bin = await start();
    const pusher = client(bin.port, 'herald-demo-key');
    await subscribed(pusher, 'news');
    const closed = new Promise<number>((resolve) => {
      pusher.connection.bind('error', (error: { data?: { code?: number } }) => {
        if (error.data?.code) resolve(error.data.code);
      });
    });
    bin.child.kill('SIGTERM');
    expect(await closed).toBe(4200);
    expect(await bin.exited).toBe(0);
    pusher.disconnect();
  });

  it('reads a realtime.config.json from the working directory, with REALTIME_* overriding it', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'herald-rt-'));
    writeFileSync(
      join(cwd, 'realtime.config.json'),
      JSON.stringify({
        applications: [{ id: 'shop', key: 'shop-key', secret: 'shop-secret', name: 'Shop' }],
      }),
    );
    const bin = await start([], { cwd, env: { REALTIME_APP_KEY: 'env-key' } });
    expect(bin.stdout).toContain('App "Shop"');
    expect(bin.stdout).toMatch(/App key:\s+env-key/);
    expect(bin.stdout).toContain('(hidden; see your config)');
    expect(bin.stdout).not.toContain('shop-secret');
  });

  it('loads a TypeScript config file given with --config', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'herald-rt-'));
    writeFileSync(
      join(cwd, 'herald.ts'),
      `const appName: string = 'Typed';\nexport default { applications: [{ id: 'ts', key: 'ts-key', secret: 'ts-secret', name: appName }] };\n`,
    );
    const bin = await start(['--config', 'herald.ts'], { cwd });
    expect(bin.stdout).toContain('App "Typed"');
  });

  it('prints every config problem with its key path and exits non-zero', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'herald-rt-'));
    writeFileSync(
      join(cwd, 'realtime.config.json'),
      JSON.stringify({
        servers: { herald: { port: 'eighty' } },
        applications: [{ id: 'a', key: 'k', secret: 's', max_connections: -1, unknown_key: true }],
      }),
    );
    const result = await runBin(['server'], { cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('servers.herald.port');
    expect(result.stderr).toContain('applications.0.max_connections');
    expect(result.stderr).toContain('unknown_key');
  });

  it('refuses the demo secret when NODE_ENV=production', async () => {
    const result = await runBin(['server', '--port', '0'], {
      cwd: mkdtempSync(join(tmpdir(), 'herald-rt-')),
      env: { NODE_ENV: 'production' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('applications.0.secret: is the demo placeholder');
  });

  it('names a bad environment variable', async () => {
    const result = await runBin(['server'], { env: { REALTIME_PORT: 'abc' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('REALTIME_PORT');
  });

  it('names scaling.routing when its value (from the file or REALTIME_SCALING_ROUTING) is not a routing', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'herald-rt-'));
    writeFileSync(join(cwd, 'realtime.config.json'), JSON.stringify({ scaling: { routing: 'everywhere' } }));
    const fromFile = await runBin(['server'], { cwd });
    expect(fromFile.code).toBe(1);
    expect(fromFile.stderr).toContain('scaling.routing: must be "interest" or "broadcast"');
    const fromEnv = await runBin(['server'], { env: { REALTIME_SCALING_ROUTING: 'all' } });
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.stderr).toContain('scaling.routing: must be "interest" or "broadcast"');
  });

  it('fails clearly when the port is taken', async () => {
    const first = await start();
    const result = await runBin(['server', '--host', '127.0.0.1', '--port', String(first.port)], {
      cwd: mkdtempSync(join(tmpdir(), 'herald-rt-')),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Cannot listen on 127.0.0.1:${first.port}`);
  });
});

describe('realtime server start-up checks', () => {
  it('says once, plainly, which transport carries the sockets and why', async () => {
    const bin = await start();
    const expected = process.env.REALTIME_TRANSPORT === 'portable' || !nativeUws.ok ? 'portable' : 'uws';
    const lines = bin.stdout.split('\n').filter((line) => line.startsWith('Transport: '));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^Transport: ${expected} `));
    expect(lines[0]).toContain(`Node ${process.versions.node}`);
    if (expected === 'uws' && nativeUws.ok) {
      // The same build the test process finds (labelled with an alias when it was found under another name).
      expect(lines[0]).toContain(`@${nativeUws.uws.source.split('@').at(-1)})`);
    }
    if (expected === 'portable' && process.env.REALTIME_TRANSPORT !== 'portable') {
      // Chosen because nothing loads: the line says what to install for native speed.
      expect(lines[0]).toContain('no native uWebSockets.js build loads');
      expect(lines[0]).toContain('uWebSockets.js@github:uNetworking');
    }
    expect(bin.stderr).not.toContain('WARNING');
  });

  it('runs on the portable transport when the config asks for it', async () => {
    const bin = await start([], { env: { REALTIME_TRANSPORT: 'portable' } });
    expect(bin.stdout).toContain('Transport: portable (node:http), as configured');
    const client = await socket(bin.port, '', { key: 'herald-demo-key', secret: 'herald-demo-secret' });
    expect(client.socketId).toMatch(/^\d+\.\d+$/);
    client.ws.close();
    const up = await fetch(`http://127.0.0.1:${bin.port}/up`);
    expect(up.status).toBe(200);
  });

  it.runIf(!nativeUws.ok)(
    'refuses to start with transport "uws" where no native build loads, naming the fix',
    async () => {
      const result = await runBin(['server', '--host', '127.0.0.1', '--port', '0'], {
        cwd: mkdtempSync(join(tmpdir(), 'herald-rt-')),
        env: { REALTIME_TRANSPORT: 'uws' },
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        'transport "uws" was asked for, but no native uWebSockets.js build loads',
      );
      expect(result.stderr).toContain('uWebSockets.js@github:uNetworking');
    },
  );

  it.runIf(nativeUws.ok)('starts with transport "uws" forced where a native build loads', async () => {
    const bin = await start([], { env: { REALTIME_TRANSPORT: 'uws' } });
    expect(bin.stdout).toMatch(/Transport: uws \(native uWebSockets\.js from /);
  });

  it('serves wss:// when a TLS certificate and key are configured', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'herald-tls-'));
    const made = spawnSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-keyout',
        join(cwd, 'key.pem'),
        '-out',
        join(cwd, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    expect(made.status).toBe(0);
    const bin = await start([], {
      cwd,
      env: { REALTIME_TLS_CERT: join(cwd, 'cert.pem'), REALTIME_TLS_KEY: join(cwd, 'key.pem') },
    });
    expect(bin.stdout).toContain(`wss://127.0.0.1:${bin.port}/app/herald-demo-key`);
    const socket = new WebSocket(`wss://127.0.0.1:${bin.port}/app/herald-demo-key?protocol=7`, {
      rejectUnauthorized: false,
    });
    const first = await new Promise<string>((resolve, reject) => {
      socket.once('message', (data) => resolve(data.toString()));
      socket.once('error', reject);
    });
    socket.close();
    expect(JSON.parse(first).event).toBe('pusher:connection_established');
  });
});

describe('realtime server logging', () => {
  it('writes scoped JSON lines to the log file, drops switched-off scopes and never logs secrets', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'herald-log-'));
    writeFileSync(
      join(cwd, 'realtime.config.json'),
      JSON.stringify({
        applications: [{ id: 'a', key: 'k', secret: 'super-secret-value' }],
        logging: {
          log_path: join(cwd, 'logs'),
          log_file: 'herald',
          scopes: { 'command.server.start': false },
        },
      }),
    );
    const bin = await start([], { cwd });
    expect(await bin.stop()).toBe(0);
    const lines = readFileSync(join(cwd, 'logs', 'herald.log'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { scope?: string; msg: string });
    expect(lines.map((line) => `${line.scope}:${line.msg}`)).toContain('socket.server:listening');
    expect(lines.some((line) => line.scope === 'command.server.start')).toBe(false);
    expect(readFileSync(join(cwd, 'logs', 'herald.log'), 'utf8')).not.toContain('super-secret-value');
  });
});

describe('realtime restart_server without scaling', () => {
  it('makes a running server close its sockets with 4200 and serve the re-read config on the same port', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'herald-restart-'));
    const control = mkdtempSync(join(tmpdir(), 'herald-control-'));
    const file = join(cwd, 'realtime.config.json');
    writeFileSync(
      file,
      JSON.stringify({ applications: [{ id: 'a', key: 'old-key', secret: 's', name: 'Before' }] }),
    );
    const bin = await start([], { cwd, env: { REALTIME_CONTROL_DIR: control } });
    const socket = new WebSocket(`ws://127.0.0.1:${bin.port}/app/old-key?protocol=7`);
    const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    await new Promise((resolve) => socket.once('message', resolve));

    writeFileSync(
      file,
      JSON.stringify({ applications: [{ id: 'a', key: 'new-key', secret: 's', name: 'After' }] }),
    );
    const result = await runBin(['restart_server'], { cwd, env: { REALTIME_CONTROL_DIR: control } });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`port ${bin.port}`);
    expect(await closed).toBe(4200);
    await until(() => bin.stdout.includes('App "After"'), 'the restarted server to list the new app');
    expect(bin.stdout).toContain('App "After"');

    const fresh = new WebSocket(`ws://127.0.0.1:${bin.port}/app/new-key?protocol=7`);
    const first = await new Promise<string>((resolve) =>
      fresh.once('message', (data) => resolve(data.toString())),
    );
    expect(JSON.parse(first).event).toBe('pusher:connection_established');
    fresh.close();
  });

  it('says so when no server is running', async () => {
    const control = mkdtempSync(join(tmpdir(), 'herald-control-'));
    const result = await runBin(['restart_server'], {
      cwd: mkdtempSync(join(tmpdir(), 'herald-rt-')),
      env: { REALTIME_CONTROL_DIR: control },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no running Herald server');
  });
});
