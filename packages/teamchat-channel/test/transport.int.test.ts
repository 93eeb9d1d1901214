import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import {
  type AddressInfo,
  connect,
  createServer as createTcpServer,
  type Server,
  type Socket,
} from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTeamChatChannel, type TeamChatChannel } from '../src/index.js';
import { rejection } from './helpers.js';

// Each option of the channel's config against a real socket on loopback: a receiver that never answers,
// one that never accepts, a CONNECT proxy and a receiver with a self-signed certificate.

const opened: TeamChatChannel[] = [];
const cleanups: (() => Promise<void> | void)[] = [];

function channel(config: Record<string, unknown> & { webhook: string }): TeamChatChannel {
  const created = createTeamChatChannel({ config });
  opened.push(created);
  return created;
}

function portOf(server: Server | HttpServer): number {
  return (server.address() as AddressInfo).port;
}

async function listen<S extends Server | HttpServer>(server: S): Promise<S> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return server;
}

/** A webhook receiver over http or https that answers Rocket.Chat's success body and records what came. */
function successHandler(received: unknown[]) {
  return (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    let text = '';
    req.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    req.on('end', () => {
      received.push(JSON.parse(text));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"success":true}');
    });
  };
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A small HTTP proxy that tunnels CONNECT requests and records them. */
async function startProxy(): Promise<{
  url: string;
  tunnels: { target: string; auth: string | undefined }[];
}> {
  const tunnels: { target: string; auth: string | undefined }[] = [];
  const sockets = new Set<Socket>();
  const proxy = createHttpServer((_req, res) => {
    res.writeHead(405).end();
  });
  proxy.on('connect', (req, client: Socket, head: Buffer) => {
    tunnels.push({ target: req.url ?? '', auth: req.headers['proxy-authorization'] });
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host ?? '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => socket.destroy()); // the other side went away; the tunnel just ends
      socket.on('close', () => {
        sockets.delete(socket);
        (socket === client ? upstream : client).destroy();
      });
    }
  });
  await listen(proxy);
  cleanups.push(() => {
    for (const socket of sockets) socket.destroy();
  });
  return { url: `http://user:pa55@127.0.0.1:${portOf(proxy)}`, tunnels };
}

describe('timeout', () => {
  it('fails with timeout when the receiver accepts the connection but never answers', async () => {
    const held: Socket[] = [];
    const silent = await listen(createTcpServer((socket) => held.push(socket)));
    cleanups.push(() => {
      for (const socket of held) socket.destroy();
    });
    const teamchat = channel({
      webhook: `http://127.0.0.1:${portOf(silent)}/hooks/id/secret-token`,
      timeout: 0.3,
      connect_timeout: 5,
    });
    const started = Date.now();
    const error = await rejection(teamchat.post('hello'));
    const took = Date.now() - started;
    expect(error.code).toBe('timeout');
    expect(error.message).toBe(`teamchat: no answer from http://127.0.0.1:${portOf(silent)} within 0.3s`);
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(2000);
    expect(held.length).toBe(1);
  });
});

describe('connect_timeout', () => {
  /**
   * A port that never completes a TCP handshake, on loopback: a listening socket with a backlog of 1 in a
   * worker thread whose event loop is blocked, so nothing ever calls accept(). Linux queues backlog + 1
   * finished handshakes; once that queue is full it drops further SYNs, and a new connect() hangs in
   * SYN-SENT, exactly like a host that drops SYNs. The test fills the queue itself before posting.
   */
  async function startNeverAccepting(): Promise<number> {
    const gate = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const server = require('node:net').createServer();
       server.listen({ host: '127.0.0.1', port: 0, backlog: 1 }, () => {
         parentPort.postMessage(server.address().port);
         Atomics.wait(workerData, 0, 0); // blocks this thread's event loop: no accept() from here on
       });`,
      { eval: true, workerData: gate },
    );
    const port = await new Promise<number>((resolve) => worker.once('message', resolve));
    const fillers: Socket[] = [];
    cleanups.push(async () => {
      for (const socket of fillers) socket.destroy();
      Atomics.store(gate, 0, 1);
      Atomics.notify(gate, 0);
      await worker.terminate();
    });
    for (let i = 0; i < 16; i++) {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => {}); // destroyed at cleanup; a late error there is expected and harmless
      fillers.push(socket);
      const connected = await new Promise<boolean>((resolve) => {
        socket.once('connect', () => resolve(true));
        setTimeout(() => resolve(false), 150);
      });
      if (!connected) return port;
    }
    throw new Error('the accept queue never filled up: cannot make a port that drops SYNs');
  }

  it('fails with connect_timeout when the receiver never completes the handshake', async () => {
    const port = await startNeverAccepting();
    const teamchat = channel({
      webhook: `http://127.0.0.1:${port}/hooks/id/secret-token`,
      connect_timeout: 0.2,
      timeout: 10,
    });
    const started = Date.now();
    const error = await rejection(teamchat.post('hello'));
    expect(error.code).toBe('connect_timeout');
    expect(error.message).toBe(`teamchat: could not connect to http://127.0.0.1:${port} within 0.2s`);
    // undici checks connect timeouts on a clock of about half a second, so allow for it; far below `timeout`.
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe('proxy', () => {
  it('posts through the proxy with CONNECT, sending the proxy credentials', async () => {
    const received: unknown[] = [];
    const target = await listen(createHttpServer(successHandler(received)));
    const proxy = await startProxy();
    const teamchat = channel({
      webhook: `http://127.0.0.1:${portOf(target)}/hooks/id/tok`,
      proxy: proxy.url,
    });
    const response = await teamchat.post('through the proxy');
    expect(response).toMatchObject({ status: 200, body: { success: true } });
    expect(received).toEqual([{ text: 'through the proxy' }]);
    expect(proxy.tunnels).toEqual([
      { target: `127.0.0.1:${portOf(target)}`, auth: `Basic ${Buffer.from('user:pa55').toString('base64')}` },
    ]);
  });

  it('fails with request_failed when the proxy is not there, though the receiver is', async () => {
    const received: unknown[] = [];
    const target = await listen(createHttpServer(successHandler(received)));
    const gone = await listen(createTcpServer());
    const port = portOf(gone);
    await new Promise<void>((resolve) => gone.close(() => resolve()));
    const teamchat = channel({
      webhook: `http://127.0.0.1:${portOf(target)}/hooks/id/tok`,
      proxy: `http://127.0.0.1:${port}`,
    });
    const error = await rejection(teamchat.post('hello'));
    expect(error.code).toBe('request_failed');
    expect(received).toEqual([]);
  });
});

describe('verify', () => {
  let dir: string;
  let tls: { key: Buffer; cert: Buffer };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'herald-teamchat-tls-'));
    execFileSync(
      '/usr/bin/openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    tls = { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function startTlsReceiver(received: unknown[]): Promise<string> {
    const server = await listen(createHttpsServer(tls, successHandler(received)));
    return `https://127.0.0.1:${portOf(server)}/hooks/id/tok`;
  }

  it('refuses a self-signed certificate when verify is true (the default)', async () => {
    const received: unknown[] = [];
    const teamchat = channel({ webhook: await startTlsReceiver(received) });
    const error = await rejection(teamchat.post('hello'));
    expect(error.code).toBe('request_failed');
    expect(error.message).toMatch(/self[- ]signed/i);
    expect(received).toEqual([]);
  });

  it('applies verify to the target behind a proxy too', async () => {
    const received: unknown[] = [];
    const webhook = await startTlsReceiver(received);
    const proxy = await startProxy();
    const strict = channel({ webhook, proxy: proxy.url });
    expect((await rejection(strict.post('refused'))).message).toMatch(/self[- ]signed/i);
    const lax = channel({ webhook, proxy: proxy.url, verify: false });
    await expect(lax.post('accepted')).resolves.toMatchObject({ status: 200 });
    expect(received).toEqual([{ text: 'accepted' }]);
    expect(proxy.tunnels).toHaveLength(2);
  });

  it('accepts the self-signed certificate when verify is false', async () => {
    const received: unknown[] = [];
    const teamchat = channel({ webhook: await startTlsReceiver(received), verify: false });
    await expect(teamchat.post('hello')).resolves.toMatchObject({ status: 200 });
    expect(received).toEqual([{ text: 'hello' }]);
  });
});
