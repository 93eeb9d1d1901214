import { describe, expect, it } from 'vitest';
import {
  encodeClose,
  encodeFrame,
  FrameReader,
  handshakeProblem,
  handshakeResponse,
  isValidCloseCode,
  Opcode,
} from './websocket-wire.js';

/** A client frame as a browser sends it: masked (unless told not to), FIN set unless told otherwise. */
function clientFrame(
  opcode: number,
  payload: string | Buffer,
  {
    fin = true,
    masked = true,
    rsv = 0,
    declared,
  }: { fin?: boolean; masked?: boolean; rsv?: number; declared?: number } = {},
): Buffer {
  const body = Buffer.from(payload);
  const length = declared ?? body.length;
  const head = length < 126 ? 2 : length < 65536 ? 4 : 10;
  const header = Buffer.alloc(head + (masked ? 4 : 0));
  header[0] = (fin ? 0x80 : 0) | rsv | opcode;
  if (head === 2) header[1] = length;
  else if (head === 4) {
    header[1] = 126;
    header.writeUInt16BE(length, 2);
  } else {
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  if (!masked) return Buffer.concat([header, body]);
  header[1] = (header[1] as number) | 0x80;
  const mask = [0x37, 0xfa, 0x21, 0x3d];
  mask.forEach((byte, i) => {
    header[head + i] = byte;
  });
  return Buffer.concat([header, body.map((byte, i) => byte ^ (mask[i % 4] as number))]);
}

class Recorder extends FrameReader {
  readonly events: string[] = [];
  constructor(protected readonly maxPayload: number) {
    super();
  }
  protected onMessage(message: Buffer): void {
    this.events.push(`message:${message.toString()}`);
  }
  protected onPing(payload: Buffer): void {
    this.events.push(`ping:${payload.toString()}`);
  }
  protected onPong(): void {
    this.events.push('pong');
  }
  protected onCloseFrame(code: number): void {
    this.events.push(`close:${code}`);
  }
  protected onProtocolError(code: number, reason: string): void {
    this.events.push(`error:${code}:${reason}`);
  }
}

function read(input: Buffer, { maxPayload = 1000, chunk }: { maxPayload?: number; chunk?: number } = {}) {
  const reader = new Recorder(maxPayload);
  // A copy: the reader unmasks in place, as it may with the chunks a socket hands it.
  const bytes = Buffer.from(input);
  if (chunk === undefined) reader.receive(bytes);
  else for (let at = 0; at < bytes.length; at += chunk) reader.receive(bytes.subarray(at, at + chunk));
  return reader.events;
}

describe('the WebSocket frame reader', () => {
  it('reads a masked text frame however the bytes are split', () => {
    const frame = clientFrame(Opcode.Text, '{"event":"pusher:ping","data":{}}');
    for (const chunk of [undefined, 1, 2, 3, 7]) {
      expect(read(frame, { chunk })).toEqual(['message:{"event":"pusher:ping","data":{}}']);
    }
  });

  it('reads many frames from one chunk, and lengths on 16 and 64 bits', () => {
    const medium = 'm'.repeat(300);
    const large = 'l'.repeat(70_000);
    const bytes = Buffer.concat([
      clientFrame(Opcode.Text, 'a'),
      clientFrame(Opcode.Text, medium),
      clientFrame(Opcode.Text, large),
      clientFrame(Opcode.Pong, ''),
    ]);
    expect(read(bytes, { maxPayload: 100_000 })).toEqual([
      'message:a',
      `message:${medium}`,
      `message:${large}`,
      'pong',
    ]);
    expect(read(bytes, { maxPayload: 100_000, chunk: 1000 })).toHaveLength(4);
  });

  it('joins a fragmented message, with a ping between its pieces', () => {
    const bytes = Buffer.concat([
      clientFrame(Opcode.Text, 'hel', { fin: false }),
      clientFrame(Opcode.Ping, 'are you there'),
      clientFrame(Opcode.Continuation, 'lo ', { fin: false }),
      clientFrame(Opcode.Continuation, 'wörld'),
    ]);
    expect(read(bytes)).toEqual(['ping:are you there', 'message:hello wörld']);
    expect(read(bytes, { chunk: 1 })).toEqual(['ping:are you there', 'message:hello wörld']);
  });

  it('holds a large frame sent a byte at a time in one buffer and reads it whole', () => {
    const text = 'x'.repeat(30_000);
    expect(read(clientFrame(Opcode.Text, text), { maxPayload: 40_000, chunk: 1 })).toEqual([
      `message:${text}`,
    ]);
    const two = Buffer.concat([clientFrame(Opcode.Text, 'a'.repeat(200)), clientFrame(Opcode.Text, 'b')]);
    expect(read(two, { chunk: 150 })).toEqual([`message:${'a'.repeat(200)}`, 'message:b']);
  });

  it('fails a message sent in more than 1 024 pieces, however small (1009)', () => {
    const pieces = [clientFrame(Opcode.Text, 'a', { fin: false })];
    for (let i = 0; i < 1100; i++) pieces.push(clientFrame(Opcode.Continuation, 'b', { fin: false }));
    const events = read(Buffer.concat(pieces));
    expect(events).toEqual([expect.stringMatching(/^error:1009:/)]);
  });

  it('passes binary frames on as they are, UTF-8 or not', () => {
    expect(read(clientFrame(Opcode.Binary, Buffer.from([0x7b, 0x7d])))).toEqual(['message:{}']);
    expect(read(clientFrame(Opcode.Binary, Buffer.from([0xff, 0xfe])))).toHaveLength(1);
  });

  it.each([
    ['an unmasked frame', clientFrame(Opcode.Text, 'x', { masked: false }), 1002],
    ['an RSV bit (no extension was agreed)', clientFrame(Opcode.Text, 'x', { rsv: 0x40 }), 1002],
    ['an unknown data opcode', clientFrame(3, 'x'), 1002],
    ['an unknown control opcode', clientFrame(11, 'x'), 1002],
    ['a control frame over 125 bytes', clientFrame(Opcode.Ping, 'p'.repeat(126)), 1002],
    ['a fragmented control frame', clientFrame(Opcode.Ping, 'p', { fin: false }), 1002],
    ['a continuation with no message', clientFrame(Opcode.Continuation, 'x'), 1002],
    [
      'a new message inside a fragmented one',
      Buffer.concat([clientFrame(Opcode.Text, 'a', { fin: false }), clientFrame(Opcode.Text, 'b')]),
      1002,
    ],
    ['invalid UTF-8 in a text frame', clientFrame(Opcode.Text, Buffer.from([0x61, 0xc3, 0x28])), 1007],
    [
      'invalid UTF-8 across fragments',
      Buffer.concat([
        clientFrame(Opcode.Text, Buffer.from([0xe2, 0x82]), { fin: false }),
        clientFrame(Opcode.Continuation, Buffer.from([0x41])),
      ]),
      1007,
    ],
    ['a message over the limit', clientFrame(Opcode.Text, 'x'.repeat(1001)), 1009],
    [
      'fragments that add up past the limit',
      Buffer.concat([
        clientFrame(Opcode.Text, 'x'.repeat(600), { fin: false }),
        clientFrame(Opcode.Continuation, 'x'.repeat(600)),
      ]),
      1009,
    ],
    ['a close frame of one byte', clientFrame(Opcode.Close, Buffer.from([3])), 1002],
    ['close code 1005, which is never sent', clientFrame(Opcode.Close, Buffer.from([0x03, 0xed])), 1002],
    ['close code 999', clientFrame(Opcode.Close, Buffer.from([0x03, 0xe7])), 1002],
    ['a close reason that is not UTF-8', clientFrame(Opcode.Close, Buffer.from([0x03, 0xe8, 0xff])), 1007],
  ])('fails the connection on %s (close code %i) and reads nothing after it', (_, bytes, code) => {
    const events = read(Buffer.concat([bytes, clientFrame(Opcode.Text, 'after')]), { maxPayload: 1000 });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatch(new RegExp(`^error:${code}:`));
  });

  it('fails an oversized frame from its header, before its payload arrives', () => {
    const header = clientFrame(Opcode.Text, '', { declared: 2 ** 40 }).subarray(0, 14);
    expect(read(header)).toEqual([expect.stringMatching(/^error:1009:/)]);
  });

  it('reports close frames with their code, 1005 when they carry none', () => {
    expect(read(clientFrame(Opcode.Close, ''))).toEqual(['close:1005']);
    const normal = Buffer.concat([Buffer.from([0x03, 0xe8]), Buffer.from('bye')]);
    expect(read(clientFrame(Opcode.Close, normal))).toEqual(['close:1000']);
    expect(read(clientFrame(Opcode.Close, Buffer.from([0x10, 0x04])))).toEqual(['close:4100']);
  });
});

describe('the frame reader under random input', () => {
  // A seeded generator (mulberry32): a failure names its seed and replays.
  function random(seed: number): () => number {
    let state = seed;
    return () => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  it('never throws, and reports nothing after it fails the connection', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const next = random(seed);
      const pieces: Buffer[] = [];
      for (let i = 0; i < 12; i++) {
        const roll = next();
        const size = Math.floor(next() * (next() < 0.1 ? 2000 : 130));
        const body = Buffer.from(Array.from({ length: size }, () => Math.floor(next() * 256)));
        if (roll < 0.15) pieces.push(body);
        else
          pieces.push(
            clientFrame(Math.floor(next() * 16), body, {
              fin: next() < 0.8,
              masked: next() < 0.95,
              rsv: next() < 0.05 ? 0x10 : 0,
            }),
          );
      }
      const bytes = Buffer.concat(pieces);
      const reader = new Recorder(1500);
      for (let at = 0; at < bytes.length; ) {
        const size = 1 + Math.floor(next() * 300);
        expect(
          () => reader.receive(Buffer.from(bytes.subarray(at, at + size))),
          `seed ${seed}`,
        ).not.toThrow();
        at += size;
      }
      const failure = reader.events.findIndex((event) => event.startsWith('error:'));
      if (failure >= 0) expect(failure, `seed ${seed}`).toBe(reader.events.length - 1);
    }
  });
});

describe('frames sent to clients', () => {
  it.each([0, 125, 126, 65_535, 65_536])('frame a %i-byte text with the right length header', (size) => {
    const frame = encodeFrame(Opcode.Text, 'é'.repeat(size / 2) + 'x'.repeat(size % 2));
    expect(frame[0]).toBe(0x81);
    const short = (frame[1] as number) & 0x7f;
    const head = size < 126 ? 2 : size < 65_536 ? 4 : 10;
    const declared =
      short < 126 ? short : short === 126 ? frame.readUInt16BE(2) : Number(frame.readBigUInt64BE(2));
    expect(declared).toBe(size);
    expect(frame.length).toBe(head + size);
    expect((frame[1] as number) & 0x80).toBe(0);
  });

  it('cut a long close reason on a character boundary, within 125 bytes', () => {
    const frame = encodeClose(4100, 'é'.repeat(100));
    const payload = frame.subarray(2);
    expect(payload.length).toBeLessThanOrEqual(125);
    expect(payload.readUInt16BE(0)).toBe(4100);
    expect(payload.subarray(2).toString()).toBe('é'.repeat(61));
    expect(encodeClose(1005, 'ignored')).toEqual(Buffer.from([0x88, 0x00]));
  });

  it('know which close codes a peer may send', () => {
    expect([1000, 1001, 1011, 3000, 4009, 4999].every(isValidCloseCode)).toBe(true);
    expect([0, 999, 1004, 1005, 1006, 1015, 2000, 5000].some(isValidCloseCode)).toBe(false);
  });
});

describe('the opening handshake', () => {
  const headers = {
    upgrade: 'websocket',
    'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
    'sec-websocket-version': '13',
  };

  it("answers RFC 6455's sample key with its accept value and the first subprotocol offered", () => {
    expect(handshakeProblem('GET', headers)).toBeUndefined();
    const answer = handshakeResponse(headers['sec-websocket-key'], 'chat, superchat');
    expect(answer).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\n/);
    expect(answer).toContain('Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n');
    expect(answer).toContain('Sec-WebSocket-Protocol: chat\r\n');
    expect(answer.endsWith('\r\n\r\n')).toBe(true);
    expect(handshakeResponse(headers['sec-websocket-key'], undefined)).not.toContain(
      'Sec-WebSocket-Protocol',
    );
  });

  it('refuses requests that are not WebSocket upgrades, saying why', () => {
    expect(handshakeProblem('POST', headers)?.status).toBe(405);
    expect(handshakeProblem('GET', { ...headers, upgrade: 'h2c' })?.message).toMatch(/Upgrade/);
    expect(handshakeProblem('GET', { ...headers, 'sec-websocket-key': 'short' })?.message).toMatch(/Key/);
    const old = handshakeProblem('GET', { ...headers, 'sec-websocket-version': '8' });
    expect(old?.status).toBe(400);
    expect(old?.headers).toEqual({ 'Sec-WebSocket-Version': '13' });
  });
});
