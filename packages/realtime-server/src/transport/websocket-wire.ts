// The WebSocket wire (RFC 6455) as the portable transport speaks it, server side: the opening handshake's checks and
// answer, frames encoded for sending, and a frame reader. No compression is negotiated (Pusher clients send small
// JSON frames; uWS and the old ws-based transport ran without it too), so every RSV bit must be 0. Pure: no sockets.
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';

export const Opcode = { Continuation: 0, Text: 1, Binary: 2, Close: 8, Ping: 9, Pong: 10 } as const;

/** Close codes of RFC 6455 §7.4.1 this side sends. */
export const CloseCode = {
  Normal: 1000,
  ProtocolError: 1002,
  NoStatus: 1005,
  Abnormal: 1006,
  InvalidData: 1007,
  TooBig: 1009,
} as const;

/** The most pieces one fragmented message may come in. */
const MAX_FRAGMENTS = 1024;

const HANDSHAKE_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
// A Sec-WebSocket-Key is 16 random bytes in base64: 22 characters and `==`.
const KEY = /^[+/0-9A-Za-z]{22}==$/;

/** Why an upgrade request cannot become a WebSocket: the HTTP status, a message, and headers to answer with. */
export interface HandshakeProblem {
  readonly status: number;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Checks an upgrade request's method and WebSocket headers (lower-case names, as node:http gives them). */
export function handshakeProblem(
  method: string | undefined,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): HandshakeProblem | undefined {
  if (method !== 'GET') return { status: 405, message: 'A WebSocket upgrade must be a GET request' };
  const upgrade = headers.upgrade;
  if (typeof upgrade !== 'string' || upgrade.toLowerCase() !== 'websocket')
    return { status: 400, message: 'Invalid Upgrade header: expected "websocket"' };
  const key = headers['sec-websocket-key'];
  if (typeof key !== 'string' || !KEY.test(key))
    return { status: 400, message: 'Missing or invalid Sec-WebSocket-Key header' };
  if (headers['sec-websocket-version'] !== '13')
    return {
      status: 400,
      message: 'Unsupported Sec-WebSocket-Version: this server speaks version 13',
      headers: { 'Sec-WebSocket-Version': '13' },
    };
  return undefined;
}

/** The `101 Switching Protocols` answer to a checked upgrade request; takes the client's first subprotocol. */
export function handshakeResponse(key: string, protocols: string | undefined): string {
  const accept = createHash('sha1')
    .update(key + HANDSHAKE_GUID)
    .digest('base64');
  const protocol = protocols?.split(',')[0]?.trim();
  return (
    'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
    `Sec-WebSocket-Accept: ${accept}\r\n${protocol ? `Sec-WebSocket-Protocol: ${protocol}\r\n` : ''}\r\n`
  );
}

/** One unmasked, unfragmented frame from server to client, header and payload in one Buffer. */
export function encodeFrame(opcode: number, payload: string | Uint8Array): Buffer {
  const length = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.byteLength;
  const head = length < 126 ? 2 : length < 65536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(head + length);
  frame[0] = 0x80 | opcode;
  if (head === 2) frame[1] = length;
  else if (head === 4) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
    frame.writeUInt32BE(length >>> 0, 6);
  }
  if (typeof payload === 'string') frame.write(payload, head);
  else frame.set(payload, head);
  return frame;
}

/** A close frame: the code and at most 123 bytes of reason (a control frame carries at most 125). */
export function encodeClose(code: number, reason: string): Buffer {
  if (code === CloseCode.NoStatus) return encodeFrame(Opcode.Close, Buffer.alloc(0));
  let text = Buffer.from(reason);
  if (text.length > 123) {
    // Cut on a character boundary: the peer fails the connection on a reason that is not UTF-8.
    let end = 123;
    while (end > 0 && ((text[end] as number) & 0xc0) === 0x80) end--;
    text = text.subarray(0, end);
  }
  const payload = Buffer.allocUnsafe(2 + text.length);
  payload.writeUInt16BE(code, 0);
  payload.set(text, 2);
  return encodeFrame(Opcode.Close, payload);
}

/** Whether a peer may send this code in a close frame (RFC 6455 §7.4; 1004–1006 and 1015 are never sent). */
export function isValidCloseCode(code: number): boolean {
  return (
    (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) ||
    (code >= 3000 && code <= 4999)
  );
}

/**
 * Reads client frames from a byte stream: checks each header, unmasks, joins fragments, checks text is UTF-8 and
 * hands complete messages and control frames to the subclass. After a protocol error it reads nothing more.
 */
export abstract class FrameReader {
  // An incomplete frame: its bytes so far in `partial`. Once its header is known, `partial` is a buffer of the whole
  // frame's size (`needed`) that arriving bytes are copied into, so a frame sent a byte at a time is held once, not as
  // thousands of chunks; before that it holds the few header bytes (`needed` 0).
  private partial: Buffer | undefined = undefined;
  private partialLength = 0;
  private needed = 0;
  // The fragments of a message sent in pieces (copied, never views of the chunks they came in), its opcode and length.
  private fragments: Buffer[] | undefined = undefined;
  private fragmentOpcode = 0;
  private fragmentLength = 0;
  /** Set once the reader stops: a protocol error, or the connection closing. */
  protected stopped = false;

  /** The largest message, fragments included, before the connection fails with 1009. */
  protected abstract readonly maxPayload: number;

  /** A complete text or binary message; the bytes are valid only during the call. */
  protected abstract onMessage(message: Buffer): void;
  protected abstract onPing(payload: Buffer): void;
  protected abstract onPong(): void;
  /** A close frame, checked: the code (1005 when it had none). */
  protected abstract onCloseFrame(code: number): void;
  /** The peer broke the protocol: fail the connection with this code. */
  protected abstract onProtocolError(code: number, reason: string): void;

  /** Feeds bytes as they arrive; frames may span chunks and a chunk may hold many frames. */
  receive(chunk: Buffer): void {
    if (this.stopped) return;
    let data = chunk;
    const partial = this.partial;
    if (partial !== undefined && this.needed > 0) {
      const take = Math.min(chunk.length, this.needed - this.partialLength);
      chunk.copy(partial, this.partialLength, 0, take);
      this.partialLength += take;
      if (this.partialLength < this.needed) return;
      this.partial = undefined;
      this.partialLength = 0;
      this.needed = 0;
      this.readFrames(partial);
      if (take < chunk.length) this.receive(chunk.subarray(take));
      return;
    }
    if (partial !== undefined) {
      data = Buffer.concat([partial, chunk]);
      this.partial = undefined;
    }
    const end = this.readFrames(data);
    if (end === data.length || this.stopped) return;
    this.needed = this.frameLength(data, end);
    this.partial = this.needed > 0 ? Buffer.allocUnsafe(this.needed) : Buffer.allocUnsafe(data.length - end);
    this.partialLength = data.copy(this.partial, 0, end);
  }

  /** Reads every whole frame from `at` on; returns where the first incomplete one starts. */
  private readFrames(data: Buffer): number {
    let at = 0;
    while (!this.stopped && data.length - at >= 2) {
      const b0 = data[at] as number;
      const b1 = data[at + 1] as number;
      let length = b1 & 0x7f;
      let head = 2;
      if (length === 126) {
        if (data.length - at < 4) break;
        length = data.readUInt16BE(at + 2);
        head = 4;
      } else if (length === 127) {
        if (data.length - at < 10) break;
        const high = data.readUInt32BE(at + 2);
        length = high > 0x1fffff ? Number.MAX_SAFE_INTEGER : high * 2 ** 32 + data.readUInt32BE(at + 6);
        head = 10;
      }
      if (!this.headerAllowed(b0, b1, length)) break;
      const start = at + head + 4;
      if (data.length < start + length) break;
      const payload = data.subarray(start, start + length);
      unmask(payload, data, at + head);
      at = start + length;
      this.frame(b0 & 0x0f, (b0 & 0x80) !== 0, payload);
    }
    return at;
  }

  /**
   * The whole length of the frame starting at `at`, or 0 while its header is incomplete. Called only for a frame whose
   * header passed {@link headerAllowed} (its length is within the payload limit), so a 64-bit length fits in its low
   * 32 bits here.
   */
  private frameLength(data: Buffer, at: number): number {
    if (data.length - at < 2) return 0;
    const short = (data[at + 1] as number) & 0x7f;
    if (short < 126) return 6 + short;
    if (short === 126) return data.length - at < 4 ? 0 : 8 + data.readUInt16BE(at + 2);
    return data.length - at < 10 ? 0 : 14 + data.readUInt32BE(at + 6);
  }

  /** Checks a header before its payload is read, so an oversized frame fails before it is buffered. */
  private headerAllowed(b0: number, b1: number, length: number): boolean {
    const opcode = b0 & 0x0f;
    if ((b0 & 0x70) !== 0) return this.fail(CloseCode.ProtocolError, 'RSV bits set without an extension');
    if ((b1 & 0x80) === 0) return this.fail(CloseCode.ProtocolError, 'Client frames must be masked');
    if (opcode >= 8) {
      if (opcode > Opcode.Pong) return this.fail(CloseCode.ProtocolError, `Unknown opcode ${opcode}`);
      if ((b0 & 0x80) === 0) return this.fail(CloseCode.ProtocolError, 'Fragmented control frame');
      if (length > 125) return this.fail(CloseCode.ProtocolError, 'Control frame longer than 125 bytes');
      return true;
    }
    if (opcode > Opcode.Binary) return this.fail(CloseCode.ProtocolError, `Unknown opcode ${opcode}`);
    if (length + this.fragmentLength > this.maxPayload) return this.fail(CloseCode.TooBig, 'Message too big');
    return true;
  }

  private frame(opcode: number, fin: boolean, payload: Buffer): void {
    if (opcode === Opcode.Ping) this.onPing(payload);
    else if (opcode === Opcode.Pong) this.onPong();
    else if (opcode === Opcode.Close) this.closeFrame(payload);
    else if (opcode === Opcode.Continuation) {
      if (this.fragments === undefined)
        return void this.fail(CloseCode.ProtocolError, 'Continuation frame without a message');
      if (payload.length > 0) this.fragments.push(Buffer.from(payload));
      this.fragmentLength += payload.length;
      if (!fin) {
        // Pusher clients never fragment; a message in more pieces than this is someone holding memory open.
        if (this.fragments.length > MAX_FRAGMENTS)
          this.fail(CloseCode.TooBig, 'Message in too many fragments');
        return;
      }
      const message = Buffer.concat(this.fragments, this.fragmentLength);
      this.fragments = undefined;
      this.fragmentLength = 0;
      this.message(this.fragmentOpcode, message);
    } else if (this.fragments !== undefined) {
      this.fail(CloseCode.ProtocolError, 'New message before the fragmented one ended');
    } else if (fin) {
      this.message(opcode, payload);
    } else {
      // Copied: the first piece must outlive the chunk it came in.
      this.fragments = [Buffer.from(payload)];
      this.fragmentOpcode = opcode;
      this.fragmentLength = payload.length;
    }
  }

  private message(opcode: number, message: Buffer): void {
    if (opcode === Opcode.Text && !isUtf8(message))
      return void this.fail(CloseCode.InvalidData, 'Text frame is not valid UTF-8');
    this.onMessage(message);
  }

  private closeFrame(payload: Buffer): void {
    if (payload.length === 0) {
      this.onCloseFrame(CloseCode.NoStatus);
      return;
    }
    const code = payload.length === 1 ? 0 : payload.readUInt16BE(0);
    if (!isValidCloseCode(code)) this.fail(CloseCode.ProtocolError, `Invalid close code ${code}`);
    else if (!isUtf8(payload.subarray(2))) this.fail(CloseCode.InvalidData, 'Close reason is not UTF-8');
    else this.onCloseFrame(code);
  }

  private fail(code: number, reason: string): false {
    this.stopped = true;
    this.partial = undefined;
    this.fragments = undefined;
    this.onProtocolError(code, reason);
    return false;
  }
}

/** XORs a client frame's payload with its 4-byte mask (at `maskAt` in `data`), in place. */
function unmask(payload: Buffer, data: Buffer, maskAt: number): void {
  const m0 = data[maskAt] as number;
  const m1 = data[maskAt + 1] as number;
  const m2 = data[maskAt + 2] as number;
  const m3 = data[maskAt + 3] as number;
  const length = payload.length;
  let i = 0;
  for (; i + 3 < length; i += 4) {
    payload[i] = (payload[i] as number) ^ m0;
    payload[i + 1] = (payload[i + 1] as number) ^ m1;
    payload[i + 2] = (payload[i + 2] as number) ^ m2;
    payload[i + 3] = (payload[i + 3] as number) ^ m3;
  }
  if (i < length) payload[i] = (payload[i] as number) ^ m0;
  if (i + 1 < length) payload[i + 1] = (payload[i + 1] as number) ^ m1;
  if (i + 2 < length) payload[i + 2] = (payload[i + 2] as number) ^ m2;
}
