import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { RealtimeServerError } from '../errors.js';
import {
  type HttpExchange,
  type ResponseHeaders,
  refusalBody,
  SendStatus,
  type Transport,
  type TransportHandlers,
  type TransportOptions,
  type TransportSocket,
  UpgradeRefusal,
} from './types.js';

const TEXT_FRAME = { binary: false } as const;

// ws's readyState for an open socket (WebSocket.OPEN), without importing its value on every send.
const OPEN = 1;

/**
 * ws's socket with the one field that leads to its transport socket, so the event listeners below are shared by
 * every socket instead of five closures (and their context) kept per idle connection.
 */
class HubWebSocket extends WebSocket {
  portable: PortableSocket<unknown> | undefined = undefined;
}

/** The transport socket of a ws socket: the server creates only HubWebSockets (its `WebSocket` option). */
function portableOf(ws: WebSocket): PortableSocket<unknown> | undefined {
  return (ws as HubWebSocket).portable;
}

function onMessage(this: WebSocket, message: Buffer): void {
  const socket = portableOf(this);
  if (socket && !socket.closed) socket.hub.handlers.message(socket, message);
}

/** A ping or pong from the client is activity, as with uWS. */
function onActivity(this: WebSocket): void {
  const socket = portableOf(this);
  if (socket && !socket.closed) socket.hub.handlers.activity(socket);
}

function onClose(this: WebSocket, code: number): void {
  const socket = portableOf(this);
  if (socket) socket.hub.closed(socket, code);
}

function onError(): void {
  // ws closes the socket itself after a protocol error (oversized or invalid frame); 'close' follows.
}

/** A ws socket seen through the transport port: uWS's semantics (topics, a synchronous close handler). */
class PortableSocket<Data> implements TransportSocket<Data> {
  readonly topics = new Set<string>();
  closed = false;

  constructor(
    readonly ws: WebSocket,
    private readonly data: Data,
    readonly hub: Hub<Data>,
  ) {}

  getUserData(): Data {
    return this.data;
  }

  send(message: string | Buffer): number {
    const ws = this.ws;
    if (this.closed || ws.readyState !== OPEN) return SendStatus.Dropped;
    // Like uWS's maxBackpressure: a receiver that does not read loses frames rather than holding memory.
    if (ws.bufferedAmount > this.hub.maxBackpressure) return SendStatus.Dropped;
    // Every Pusher frame is text: a Buffer (a topic publish encodes once) must not go out as a binary frame, which
    // a browser hands pusher-js as a Blob it cannot parse.
    ws.send(message, TEXT_FRAME);
    return ws.bufferedAmount > 0 ? SendStatus.Buffered : SendStatus.Sent;
  }

  subscribe(topic: string): boolean {
    if (this.closed) return false;
    this.topics.add(topic);
    this.hub.join(topic, this);
    return true;
  }

  unsubscribe(topic: string): boolean {
    if (!this.topics.delete(topic)) return false;
    this.hub.leave(topic, this);
    return true;
  }

  publish(topic: string, message: string): boolean {
    this.hub.publish(topic, message, this);
    return true;
  }

  getBufferedAmount(): number {
    return this.ws.bufferedAmount;
  }

  end(code: number, reason: string): void {
    if (this.closed) return;
    this.hub.closed(this, code);
    // ws keeps its own timer: a peer that never answers the close frame is cut off after 30 s.
    this.ws.close(code, reason);
  }
}

/** Topic membership shared by every socket of one transport. */
class Hub<Data> {
  readonly topics = new Map<string, Set<PortableSocket<Data>>>();

  constructor(
    readonly maxBackpressure: number,
    readonly handlers: TransportHandlers<Data>,
  ) {}

  join(topic: string, socket: PortableSocket<Data>): void {
    let members = this.topics.get(topic);
    if (!members) {
      members = new Set();
      this.topics.set(topic, members);
    }
    members.add(socket);
  }

  leave(topic: string, socket: PortableSocket<Data>): void {
    const members = this.topics.get(topic);
    if (!members) return;
    members.delete(socket);
    if (members.size === 0) this.topics.delete(topic);
  }

  publish(topic: string, message: string, except?: PortableSocket<Data>): void {
    const members = this.topics.get(topic);
    if (!members) return;
    // Encode once: ws frames a Buffer without copying it for each receiver.
    const bytes = Buffer.from(message);
    for (const socket of members) {
      if (socket !== except) socket.send(bytes);
    }
  }

  /** Runs the core's close handler once, at the moment the socket closes, and drops its topics (as uWS does). */
  closed(socket: PortableSocket<Data>, code: number): void {
    if (socket.closed) return;
    socket.closed = true;
    for (const topic of socket.topics) this.leave(topic, socket);
    socket.topics.clear();
    this.handlers.close(socket, code);
  }
}

/** Header record with repeated headers joined by `, `, as the uWS adapter builds it. */
function headerRecord(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  const raw = request.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const key = (raw[i] as string).toLowerCase();
    const value = raw[i + 1] as string;
    const existing = headers[key];
    headers[key] = existing === undefined ? value : `${existing}, ${value}`;
  }
  return headers;
}

function splitUrl(url: string): { path: string; query: string } {
  const mark = url.indexOf('?');
  return mark < 0 ? { path: url, query: '' } : { path: url.slice(0, mark), query: url.slice(mark + 1) };
}

function toExchange(request: IncomingMessage, response: ServerResponse): HttpExchange {
  const { path, query } = splitUrl(request.url ?? '/');
  return {
    method: (request.method ?? 'GET').toUpperCase(),
    url: path,
    query,
    headers: headerRecord(request),
    remoteAddress: () => request.socket.remoteAddress ?? '',
    onAborted(listener) {
      response.on('close', () => {
        if (!response.writableFinished) listener();
      });
    },
    onData(listener) {
      request.on('data', (chunk: Buffer) => listener(chunk, false));
      request.on('end', () => listener(new Uint8Array(0), true));
    },
    respond(status, headers: ResponseHeaders, body, close) {
      if (response.headersSent || response.destroyed) return;
      const out: Record<string, string> = {};
      if (headers instanceof Headers) {
        headers.forEach((value, key) => {
          out[key] = value;
        });
      } else {
        for (const key in headers) out[key.toLowerCase()] = headers[key] as string;
      }
      out['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
      if (close) out.connection = 'close';
      response.writeHead(status, out);
      response.end(body);
      // A refused body is not read: the connection cannot be reused, so it goes once the answer is out.
      if (close) response.once('finish', () => request.socket.destroy());
    },
    stream(status, headers: ResponseHeaders) {
      const out: Record<string, string> = {};
      if (headers instanceof Headers) {
        headers.forEach((value, key) => {
          out[key] = value;
        });
      } else for (const key in headers) out[key.toLowerCase()] = headers[key] as string;
      delete out['content-length'];
      response.writeHead(status, out);
      response.flushHeaders();
      return {
        write: (chunk) => {
          if (!response.destroyed) response.write(chunk);
        },
        end: () => {
          if (!response.destroyed) response.end();
        },
      };
    },
  };
}

const STATUS_TEXT: Record<number, string> = { 404: 'Not Found', 429: 'Too Many Requests' };

function refuseUpgrade(socket: Duplex, refusal: UpgradeRefusal): void {
  const body = refusalBody(refusal);
  let head = `HTTP/1.1 ${refusal.status} ${STATUS_TEXT[refusal.status] ?? ''}\r\n`;
  for (const [name, value] of Object.entries(refusal.headers)) head += `${name}: ${value}\r\n`;
  socket.end(
    `${head}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
}

/** Whether this Node binds with SO_REUSEPORT on request (`reusePort`, Node 22.12+ and 23.1+). */
function hasReusePort(): boolean {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  return major > 23 || (major === 23 && minor >= 1) || (major === 22 && minor >= 12);
}

/**
 * In a node:cluster worker (`realtime server --workers N`), each worker binds its own SO_REUSEPORT socket where
 * Node can, so the kernel spreads connections as it does for uWS; elsewhere the listen goes through the cluster
 * primary, which hands connections round-robin. A lone server binds as usual (a taken port is an error).
 */
function sharedListen(): { reusePort?: boolean; exclusive?: boolean } {
  return cluster.isWorker && hasReusePort() ? { reusePort: true, exclusive: true } : {};
}

/**
 * The portable transport: Node's own `http`/`https` and the `ws` package, for every Node line and C library where no
 * native uWebSockets.js build loads. Same routes, checks, close semantics and backpressure rule as the uWS one;
 * fan-out is a loop over each topic's sockets with the frame encoded once.
 */
export function createPortableTransport<Data>(options: TransportOptions<Data>): Transport {
  const { handlers, tls } = options;
  const hub = new Hub<Data>(options.maxBackpressure, handlers);
  let server: Server;
  if (tls) {
    let cert: Buffer;
    let key: Buffer;
    try {
      cert = readFileSync(tls.certFile);
      key = readFileSync(tls.keyFile);
    } catch (cause) {
      const file = (cause as { path?: string }).path ?? tls.certFile;
      throw new RealtimeServerError('tls_files_unreadable', `Cannot read TLS file ${file}`, { cause });
    }
    server = createHttpsServer({ cert, key, ...(tls.passphrase ? { passphrase: tls.passphrase } : {}) });
  } else {
    server = createHttpServer();
  }
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxPayloadLength,
    perMessageDeflate: false,
    clientTracking: false,
    WebSocket: HubWebSocket,
  });

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    handlers.http(toExchange(request, response));
  });

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const { path, query } = splitUrl(request.url ?? '/');
    const key = path.startsWith(options.upgradePrefix) ? path.slice(options.upgradePrefix.length) : undefined;
    if (key === undefined || key === '' || key.includes('/')) {
      refuseUpgrade(socket, new UpgradeRefusal(404, 'Not Found'));
      return;
    }
    const forwarded = request.headers['x-forwarded-for'];
    const data = handlers.upgrade({
      key: decodeURIComponent(key),
      origin: request.headers.origin ?? '',
      query,
      remoteAddress: request.socket.remoteAddress ?? '',
      forwardedFor: Array.isArray(forwarded) ? forwarded.join(', ') : (forwarded ?? ''),
    });
    if (data instanceof UpgradeRefusal) {
      refuseUpgrade(socket, data);
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      const portable = new PortableSocket(ws, data, hub);
      ws.portable = portable;
      ws.on('message', onMessage);
      ws.on('ping', onActivity);
      ws.on('pong', onActivity);
      ws.on('close', onClose);
      ws.on('error', onError);
      handlers.open(portable);
    });
  });
  server.on('clientError', (_error: Error, socket: Duplex) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  return {
    name: 'portable',
    listen(host, port) {
      return new Promise<number>((resolve, reject) => {
        const failed = (cause: Error) =>
          reject(
            new RealtimeServerError(
              'listen_failed',
              `Cannot listen on ${host}:${port} (is the port in use?)`,
              {
                cause,
              },
            ),
          );
        server.once('error', failed);
        server.listen({ host, port, ...sharedListen() }, () => {
          server.off('error', failed);
          const address = server.address();
          resolve(typeof address === 'object' && address ? address.port : port);
        });
      });
    },
    stopListening() {
      if (!server.listening) return;
      server.close();
      server.closeIdleConnections();
    },
    publish(topic, message) {
      hub.publish(topic, message);
    },
    numSubscribers(topic) {
      return hub.topics.get(topic)?.size ?? 0;
    },
  };
}
