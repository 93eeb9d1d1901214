import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
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
  type UpgradeRequest,
} from './types.js';
import {
  CloseCode,
  encodeClose,
  encodeFrame,
  FrameReader,
  handshakeProblem,
  handshakeResponse,
  Opcode,
} from './websocket-wire.js';

// How long a closing socket waits for its peer's close frame and for its last bytes to drain before it is cut off.
const CLOSE_TIMEOUT_MS = 30_000;

function onData(this: Socket, chunk: Buffer): void {
  (this as WireSocket).portable?.receive(chunk);
}

function onSocketClose(this: Socket): void {
  const socket = (this as WireSocket).portable;
  if (socket) socket.hub.closed(socket, CloseCode.Abnormal);
}

function onSocketError(this: Socket): void {
  // A reset or a write to a closed peer: the socket is gone; 'close' follows and reports 1006.
  this.destroy();
}

/** Node's socket with the one field that leads to its transport socket, so the listeners above are shared. */
type WireSocket = Socket & { portable?: PortableSocket<unknown> };

/**
 * One WebSocket over a Node socket, seen through the transport port: uWS's semantics (topics, a synchronous close
 * handler). It reads frames itself (see {@link FrameReader}) and writes prebuilt frames, so a topic publish frames
 * its message once and every subscriber's socket writes that same Buffer.
 */
class PortableSocket<Data> extends FrameReader implements TransportSocket<Data> {
  /** The topics it is subscribed to: one needs no collection, which is most sockets (one channel each). */
  topics: Topic<Data> | Topic<Data>[] | undefined = undefined;
  /** Set when the close handler has run: by a close frame, `end`, a protocol error or the socket closing. */
  closed = false;

  constructor(
    readonly socket: Socket,
    private readonly data: Data,
    readonly hub: Hub<Data>,
  ) {
    super();
    (socket as WireSocket).portable = this as PortableSocket<unknown>;
    // node:http keeps its sockets half-open; a peer that ends its side without a close frame has dropped the
    // connection: Node then ends ours, and 'close' reports 1006.
    socket.allowHalfOpen = false;
    socket.on('data', onData);
    socket.on('close', onSocketClose);
  }

  protected get maxPayload(): number {
    return this.hub.maxPayload;
  }

  getUserData(): Data {
    return this.data;
  }

  send(message: string | Buffer): number {
    return this.write(encodeFrame(Opcode.Text, message));
  }

  /** Writes a whole frame; like uWS's maxBackpressure, a receiver that does not read loses frames past the cap. */
  write(frame: Buffer): number {
    const socket = this.socket;
    if (this.closed || socket.destroyed) return SendStatus.Dropped;
    if (socket.writableLength > this.hub.maxBackpressure) return SendStatus.Dropped;
    socket.write(frame);
    return socket.writableLength > 0 ? SendStatus.Buffered : SendStatus.Sent;
  }

  subscribe(topic: string): boolean {
    if (this.closed) return false;
    this.hub.join(topic, this);
    return true;
  }

  unsubscribe(name: string): boolean {
    const topic = this.hub.topics.get(name);
    if (!topic?.has(this)) return false;
    this.hub.leave(topic, this);
    return true;
  }

  publish(topic: string, message: string): boolean {
    this.hub.publish(topic, message, this);
    return true;
  }

  getBufferedAmount(): number {
    return this.socket.writableLength;
  }

  end(code: number, reason: string): void {
    if (this.closed) return;
    this.hub.closed(this, code);
    this.sendClose(code, reason);
  }

  protected onMessage(message: Buffer): void {
    if (!this.closed) this.hub.handlers.message(this, message);
  }

  /** A ping or pong from the client is activity, as with uWS; a ping is answered. */
  protected onPing(payload: Buffer): void {
    if (this.closed) return;
    // A client that pings but does not read gets no more pongs than frames past the backpressure cap.
    if (this.socket.writableLength <= this.hub.maxBackpressure)
      this.socket.write(encodeFrame(Opcode.Pong, payload));
    this.hub.handlers.activity(this);
  }

  protected onPong(): void {
    if (!this.closed) this.hub.handlers.activity(this);
  }

  /** The peer closes: answer with the same code (unless this side closed first) and end the socket. */
  protected onCloseFrame(code: number): void {
    this.stopped = true;
    if (this.closed) {
      this.socket.end();
      return;
    }
    this.hub.closed(this, code);
    this.sendClose(code, '');
  }

  protected onProtocolError(code: number, reason: string): void {
    if (this.closed) {
      this.socket.destroy();
      return;
    }
    this.hub.closed(this, code);
    this.sendClose(code, reason);
  }

  /** Writes the close frame after whatever is queued, then ends the socket; a peer that never reads is cut off. */
  private sendClose(code: number, reason: string): void {
    const socket = this.socket;
    if (socket.destroyed) return;
    socket.end(encodeClose(code, reason));
    // A fixed limit (the socket may still receive, which would restart an idle timeout); a closure only for sockets
    // that are closing.
    const timer = setTimeout(() => socket.destroy(), CLOSE_TIMEOUT_MS);
    // Nor does it keep a process that is otherwise done from exiting.
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  }
}

/** A topic's subscribers. Sockets hold the topic itself, so its name is kept once however many subscribe. */
class Topic<Data> extends Set<PortableSocket<Data>> {
  constructor(readonly name: string) {
    super();
  }
}

/** Topic membership shared by every socket of one transport. */
class Hub<Data> {
  readonly topics = new Map<string, Topic<Data>>();

  constructor(
    readonly maxPayload: number,
    readonly maxBackpressure: number,
    readonly handlers: TransportHandlers<Data>,
  ) {}

  join(name: string, socket: PortableSocket<Data>): void {
    let topic = this.topics.get(name);
    if (!topic) {
      topic = new Topic(name);
      this.topics.set(name, topic);
    }
    if (topic.has(socket)) return;
    topic.add(socket);
    const held = socket.topics;
    if (held === undefined) socket.topics = topic;
    else if (Array.isArray(held)) held.push(topic);
    else socket.topics = [held, topic];
  }

  leave(topic: Topic<Data>, socket: PortableSocket<Data>): void {
    this.drop(topic, socket);
    const held = socket.topics;
    if (held === topic) socket.topics = undefined;
    else if (Array.isArray(held)) {
      held.splice(held.indexOf(topic), 1);
      if (held.length === 1) socket.topics = held[0];
    }
  }

  /** Takes the socket out of the topic's members, and the topic out of the map once nobody is left. */
  private drop(topic: Topic<Data>, socket: PortableSocket<Data>): void {
    topic.delete(socket);
    if (topic.size === 0 && this.topics.get(topic.name) === topic) this.topics.delete(topic.name);
  }

  publish(topic: string, message: string, except?: PortableSocket<Data>): void {
    const members = this.topics.get(topic);
    if (!members) return;
    // Framed once: every subscriber's socket writes the same Buffer.
    const frame = encodeFrame(Opcode.Text, message);
    for (const socket of members) {
      if (socket !== except) socket.write(frame);
    }
  }

  /** Runs the core's close handler once, at the moment the socket closes, and drops its topics (as uWS does). */
  closed(socket: PortableSocket<Data>, code: number): void {
    if (socket.closed) return;
    socket.closed = true;
    const held = socket.topics;
    socket.topics = undefined;
    if (Array.isArray(held)) for (const topic of held) this.drop(topic, socket);
    else if (held !== undefined) this.drop(held, socket);
    this.handlers.close(socket, code);
  }
}

/**
 * What the core learns of an upgrade. The peer's address is read only when asked (the per-address limits are off by
 * default): Node keeps the answer on the socket for as long as it lives.
 */
class PortableUpgrade implements UpgradeRequest {
  readonly origin: string;

  constructor(
    readonly key: string,
    readonly query: string,
    private readonly request: IncomingMessage,
  ) {
    this.origin = request.headers.origin ?? '';
  }

  get remoteAddress(): string {
    return this.request.socket.remoteAddress ?? '';
  }

  get forwardedFor(): string {
    const forwarded = this.request.headers['x-forwarded-for'];
    return Array.isArray(forwarded) ? forwarded.join(', ') : (forwarded ?? '');
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

/** The app key of the upgrade path; a malformed percent-escape stays as sent (an unknown key, refused after open). */
function decodedKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

function refuseUpgrade(socket: Duplex, refusal: UpgradeRefusal): void {
  const body = refusalBody(refusal);
  let head = `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? ''}\r\n`;
  for (const [name, value] of Object.entries(refusal.headers)) head += `${name}: ${value}\r\n`;
  socket.end(
    `${head}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
  // node:http sockets are half-open: a peer that never closes would keep this one.
  socket.once('finish', () => socket.destroy());
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
 * The portable transport: Node's own `http`/`https` and the WebSocket wire spoken over its sockets
 * (`websocket-wire.ts`), for every Node line and C library where no native uWebSockets.js build loads. Same routes,
 * checks, close semantics and backpressure rule as the uWS one; fan-out is a loop over each topic's sockets writing
 * one frame built once.
 */
export function createPortableTransport<Data>(options: TransportOptions<Data>): Transport {
  const { handlers, tls } = options;
  const hub = new Hub<Data>(options.maxPayloadLength, options.maxBackpressure, handlers);
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
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    handlers.http(toExchange(request, response));
  });

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // node:http hands the socket over without its own error listener: a reset must not become an uncaught error.
    socket.on('error', onSocketError);
    const { path, query } = splitUrl(request.url ?? '/');
    const key = path.startsWith(options.upgradePrefix) ? path.slice(options.upgradePrefix.length) : undefined;
    if (key === undefined || key === '' || key.includes('/')) {
      refuseUpgrade(socket, new UpgradeRefusal(404, 'Not Found'));
      return;
    }
    const problem = handshakeProblem(request.method, request.headers);
    if (problem) {
      refuseUpgrade(socket, new UpgradeRefusal(problem.status, problem.message, problem.headers));
      return;
    }
    const data = handlers.upgrade(new PortableUpgrade(decodedKey(key), query, request));
    if (data instanceof UpgradeRefusal) {
      refuseUpgrade(socket, data);
      return;
    }
    open(request, socket as Socket, head, data);
  });

  /** Answers the handshake and hands the new socket to the core; bytes sent after the request are its first. */
  function open(request: IncomingMessage, socket: Socket, head: Buffer, data: Data): void {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    socket.setTimeout(0);
    socket.setNoDelay(true);
    socket.write(
      handshakeResponse(
        request.headers['sec-websocket-key'] as string,
        request.headers['sec-websocket-protocol'],
      ),
    );
    const portable = new PortableSocket(socket, data, hub);
    handlers.open(portable);
    if (head.length > 0) portable.receive(head);
  }
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
