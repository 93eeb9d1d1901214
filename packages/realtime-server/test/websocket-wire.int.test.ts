// The WebSocket layer itself, over a raw TCP socket: what a client sees of pings, fragments, close handshakes and
// protocol errors. Runs on each transport (the vitest project picks it), so the portable transport's own framing is
// held to what uWebSockets.js does.
import { connect, type Socket } from 'node:net';
import { until } from '@herald/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP, startServer } from './support.js';

interface ServerFrame {
  opcode: number;
  payload: Buffer;
}

/** A WebSocket client written out by hand, so it can send what no library would. */
class WireClient {
  readonly frames: ServerFrame[] = [];
  ended = false;
  private buffered = Buffer.alloc(0);
  private handshake = '';
  /** Every byte received, as latin1 text: the handshake answer or refusal with its body. */
  private raw = '';

  private constructor(readonly socket: Socket) {}

  static async open(
    port: number,
    headers: Record<string, string> = {},
    { path = `/app/${APP.key}`, allowHalfOpen = false } = {},
  ): Promise<WireClient> {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen });
    const client = new WireClient(socket);
    socket.on('data', (chunk) => client.take(chunk));
    socket.on('close', () => {
      client.ended = true;
    });
    socket.on('error', () => {});
    const lines = {
      Host: `127.0.0.1:${port}`,
      Upgrade: 'websocket',
      Connection: 'Upgrade',
      'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
      'Sec-WebSocket-Version': '13',
      ...headers,
    };
    let request = `GET ${path}?protocol=7&client=js&version=8.4.0 HTTP/1.1\r\n`;
    for (const [name, value] of Object.entries(lines)) request += `${name}: ${value}\r\n`;
    socket.write(`${request}\r\n`);
    await until(() => client.handshake.includes('\r\n\r\n') || client.ended);
    return client;
  }

  get status(): number {
    return Number(this.handshake.split(' ')[1]);
  }

  get response(): string {
    return this.raw;
  }

  private take(chunk: Buffer): void {
    this.raw += chunk.toString('latin1');
    if (!this.handshake.includes('\r\n\r\n')) {
      const text = chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      this.handshake += end < 0 ? text : text.slice(0, end + 4);
      if (end < 0) return;
      chunk = chunk.subarray(end + 4);
    }
    this.buffered = Buffer.concat([this.buffered, chunk]);
    while (this.buffered.length >= 2) {
      let length = (this.buffered[1] as number) & 0x7f;
      let head = 2;
      if (length === 126) {
        length = this.buffered.readUInt16BE(2);
        head = 4;
      } else if (length === 127) {
        length = Number(this.buffered.readBigUInt64BE(2));
        head = 10;
      }
      if (this.buffered.length < head + length) return;
      const opcode = (this.buffered[0] as number) & 0x0f;
      this.frames.push({ opcode, payload: this.buffered.subarray(head, head + length) });
      this.buffered = this.buffered.subarray(head + length);
    }
  }

  /** Sends one frame, masked unless told otherwise. */
  send(opcode: number, payload: string | Buffer, { fin = true, masked = true } = {}): void {
    const body = Buffer.from(payload);
    const head = body.length < 126 ? 2 : 4;
    const header = Buffer.alloc(head + (masked ? 4 : 0));
    header[0] = (fin ? 0x80 : 0) | opcode;
    header[1] = (masked ? 0x80 : 0) | (head === 2 ? body.length : 126);
    if (head === 4) header.writeUInt16BE(body.length, 2);
    if (!masked) return void this.socket.write(Buffer.concat([header, body]));
    const mask = Buffer.from([1, 2, 3, 4]);
    mask.copy(header, head);
    this.socket.write(Buffer.concat([header, body.map((byte, i) => byte ^ (mask[i % 4] as number))]));
  }

  texts(): string[] {
    return this.frames.filter((frame) => frame.opcode === 1).map((frame) => frame.payload.toString());
  }

  /** The code of the server's close frame, once one came. */
  closeCode(): number | undefined {
    const close = this.frames.find((frame) => frame.opcode === 8);
    return close && close.payload.length >= 2 ? close.payload.readUInt16BE(0) : close ? 1005 : undefined;
  }
}

const PING = '{"event":"pusher:ping","data":{}}';

/** A client past the handshake and Pusher's connection_established. */
async function connectedClient(port: number): Promise<WireClient> {
  const client = await WireClient.open(port);
  expect(client.status).toBe(101);
  await until(() => client.texts().some((text) => text.includes('pusher:connection_established')));
  return client;
}

describe('the WebSocket layer, over a raw socket', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.stop());

  const connected = () => connectedClient(server.port);

  it('answers the handshake with the accept value of RFC 6455 and a first frame that is text', async () => {
    const client = await connected();
    expect(client.response).toMatch(/sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK\+xOo=\r\n/i);
    expect(client.frames[0]?.opcode).toBe(1);
    client.socket.destroy();
  });

  it('sends an event over 64 KiB in one text frame with the 64-bit length form, intact', async () => {
    const client = await connected();
    client.send(1, JSON.stringify({ event: 'pusher:subscribe', data: { channel: 'big' } }));
    await until(() => client.texts().some((text) => text.includes('subscription_succeeded')));
    const data = 'é'.repeat(40_000);
    server.server.publish(APP.id, { channels: ['big'], event: 'large', data });
    await until(() => client.texts().some((text) => text.includes('"large"')));
    const frame = client.frames.find((each) => each.payload.includes('"large"'));
    expect(frame?.opcode).toBe(1);
    expect(JSON.parse(frame?.payload.toString() ?? '{}').data).toBe(data);
    client.socket.destroy();
  });

  it('answers a WebSocket ping with a pong carrying the same bytes', async () => {
    const client = await connected();
    client.send(9, 'are you there');
    await until(() => client.frames.some((frame) => frame.opcode === 10));
    expect(client.frames.find((frame) => frame.opcode === 10)?.payload.toString()).toBe('are you there');
    client.socket.destroy();
  });

  it('takes a message sent in fragments, a ping between them, as one message', async () => {
    const client = await connected();
    client.send(1, PING.slice(0, 10), { fin: false });
    client.send(9, 'between');
    client.send(0, PING.slice(10, 20), { fin: false });
    client.send(0, PING.slice(20));
    await until(() => client.texts().some((text) => text.includes('pusher:pong')));
    expect(client.ended).toBe(false);
    client.socket.destroy();
  });

  it('ends a socket whose client ended its side without a close frame, closing it as dropped (1006)', async () => {
    const closed = new Map<string, number>();
    server.server.events.on('connectionClosed', ({ socketId, code }) => closed.set(socketId, code));
    const client = await connectedClient(server.port);
    const established = client.texts().find((text) => text.includes('pusher:connection_established')) ?? '';
    const socketId = JSON.parse(JSON.parse(established).data).socket_id as string;
    client.socket.end();
    await until(() => client.ended && closed.has(socketId));
    expect(closed.get(socketId)).toBe(1006);
  });

  it('answers a close frame with one of its own and ends the connection', async () => {
    const client = await connected();
    client.send(8, Buffer.from([0x03, 0xe8]));
    await until(() => client.ended);
    expect(client.closeCode()).toBe(1000);
  });

  it('closes a socket whose frame is over the payload limit (four times the largest message an app allows)', async () => {
    const client = await connected();
    client.send(1, JSON.stringify({ event: 'pusher:ping', data: 'x'.repeat(50_000) }));
    await until(() => client.ended);
    // The portable transport says why (1009, as ws did); uWS cuts the connection without a close frame.
    if (server.server.transport.name === 'portable') expect(client.closeCode()).toBe(1009);
    else expect(client.closeCode()).toBeUndefined();
  });
});

// uWebSockets.js takes unmasked client frames; the portable transport holds clients to the RFC, as ws did.
describe('the portable transport, beyond what uWebSockets.js checks', () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    server = await startServer({ transport: 'portable' });
  });
  afterAll(() => server.stop());

  it('closes a socket that sends an unmasked frame with 1002 (RFC 6455 §5.1), and keeps serving others', async () => {
    const client = await connectedClient(server.port);
    client.send(1, PING, { masked: false });
    await until(() => client.ended);
    expect(client.closeCode()).toBe(1002);
    const other = await connectedClient(server.port);
    other.send(1, PING);
    await until(() => other.texts().some((text) => text.includes('pusher:pong')));
    other.socket.destroy();
  });

  it.each([
    ['an unsupported version', { 'Sec-WebSocket-Version': '8' }, 400, /Version/],
    ['a malformed key', { 'Sec-WebSocket-Key': 'not-a-key' }, 400, /Key/],
    ['another protocol', { Upgrade: 'h2c' }, 400, /Upgrade/],
  ])('are refused on %s with a status and a JSON body saying why', async (_, headers, status, why) => {
    // A client that keeps its side open: the server must still let the socket go once the refusal is out.
    const client = await WireClient.open(server.port, headers, { allowHalfOpen: true });
    expect(client.status).toBe(status);
    const body = () => client.response.slice(client.response.indexOf('\r\n\r\n') + 4);
    await until(() => expect(JSON.parse(body()).error).toMatch(why));
    // Once the server has let its socket go, a byte from the client is answered with a reset.
    await until(() => {
      if (!client.ended) client.socket.write('x');
      return client.ended;
    });
  });

  it('survives an app key with a malformed percent-escape (an unknown app, refused after open)', async () => {
    const client = await WireClient.open(server.port, {}, { path: '/app/%E0%A4%A' });
    expect(client.status).toBe(101);
    await until(() => client.ended);
    expect(client.texts().join()).toContain('4001');
    const other = await connectedClient(server.port);
    other.socket.destroy();
  });
});
