import { hash } from 'node:crypto';

// HMAC-SHA256 (RFC 2104 over FIPS 180-4) for the checks on hot paths: a signed REST call, a private or presence
// subscription. Node's `createHmac` builds a stream-capable object per call, and that setup costs more than the
// hashing of a short message. Here the key's two padded blocks are hashed once per secret and their chaining values
// kept, so a check hashes only the message's blocks and one outer block, with no object made per call. The answers
// are node:crypto's, byte for byte (signature.test.ts compares them over many random keys and messages).

const ROUND = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);
const INITIAL = new Int32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);
const BLOCK = 64;
const schedule = new Int32Array(64);

/** Folds one 64-byte block at `offset` into the eight chaining words. */
function compress(state: Int32Array, bytes: Uint8Array, offset: number): void {
  const w = schedule;
  for (let i = 0; i < 16; i++) {
    const j = offset + i * 4;
    w[i] =
      ((bytes[j] as number) << 24) |
      ((bytes[j + 1] as number) << 16) |
      ((bytes[j + 2] as number) << 8) |
      (bytes[j + 3] as number);
  }
  for (let i = 16; i < 64; i++) {
    const x = w[i - 15] as number;
    const y = w[i - 2] as number;
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    w[i] = ((w[i - 16] as number) + s0 + (w[i - 7] as number) + s1) | 0;
  }
  let a = state[0] as number;
  let b = state[1] as number;
  let c = state[2] as number;
  let d = state[3] as number;
  let e = state[4] as number;
  let f = state[5] as number;
  let g = state[6] as number;
  let h = state[7] as number;
  for (let i = 0; i < 64; i++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + s1 + ((e & f) ^ (~e & g)) + (ROUND[i] as number) + (w[i] as number)) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  state[0] = ((state[0] as number) + a) | 0;
  state[1] = ((state[1] as number) + b) | 0;
  state[2] = ((state[2] as number) + c) | 0;
  state[3] = ((state[3] as number) + d) | 0;
  state[4] = ((state[4] as number) + e) | 0;
  state[5] = ((state[5] as number) + f) | 0;
  state[6] = ((state[6] as number) + g) | 0;
  state[7] = ((state[7] as number) + h) | 0;
}

/** A secret prepared for HMAC: the chaining values after its inner and outer padded blocks. */
interface PreparedKey {
  readonly inner: Int32Array;
  readonly outer: Int32Array;
}

function prepare(secret: string): PreparedKey {
  let key: Uint8Array = Buffer.from(secret, 'utf8');
  // A key longer than a block is first hashed (RFC 2104, section 2).
  if (key.length > BLOCK) key = hash('sha256', key, 'buffer');
  const pad = Buffer.alloc(BLOCK);
  const inner = Int32Array.from(INITIAL);
  for (let i = 0; i < BLOCK; i++) pad[i] = (key[i] ?? 0) ^ 0x36;
  compress(inner, pad, 0);
  const outer = Int32Array.from(INITIAL);
  for (let i = 0; i < BLOCK; i++) pad[i] = (key[i] ?? 0) ^ 0x5c;
  compress(outer, pad, 0);
  return { inner, outer };
}

// Apps are few and their secrets change rarely; the bound only keeps a stream of made-up secrets (rotations in a
// test, say) from growing the map without end.
const PREPARED_LIMIT = 1024;
const prepared = new Map<string, PreparedKey>();

function preparedKey(secret: string): PreparedKey {
  let key = prepared.get(secret);
  if (key === undefined) {
    if (prepared.size >= PREPARED_LIMIT) prepared.clear();
    key = prepare(secret);
    prepared.set(secret, key);
  }
  return key;
}

// Work space: checks are synchronous, so one of each serves every call.
let message = Buffer.alloc(1024);
// All Buffers, so the compression function only ever reads one kind of array.
const outerBlock = Buffer.alloc(BLOCK);
const state = new Int32Array(8);

/** Pads the `length` bytes in `bytes` after `prefix` bytes already hashed, and returns the padded end. */
function pad(bytes: Uint8Array, length: number, prefix: number): number {
  let end = length;
  bytes[end++] = 0x80;
  while (end % BLOCK !== 56) bytes[end++] = 0;
  const bits = (length + prefix) * 8;
  const high = Math.floor(bits / 0x100000000);
  bytes[end++] = high >>> 24;
  bytes[end++] = (high >>> 16) & 0xff;
  bytes[end++] = (high >>> 8) & 0xff;
  bytes[end++] = high & 0xff;
  bytes[end++] = bits >>> 24;
  bytes[end++] = (bits >>> 16) & 0xff;
  bytes[end++] = (bits >>> 8) & 0xff;
  bytes[end++] = bits & 0xff;
  return end;
}

function writeWords(words: Int32Array, out: Uint8Array, offset: number): void {
  for (let i = 0; i < 8; i++) {
    const word = words[i] as number;
    const at = offset + i * 4;
    out[at] = word >>> 24;
    out[at + 1] = (word >>> 16) & 0xff;
    out[at + 2] = (word >>> 8) & 0xff;
    out[at + 3] = word & 0xff;
  }
}

/**
 * HMAC-SHA256 of a string (UTF-8) under `secret`, written as 32 bytes into `out` (which is returned). The same
 * bytes as `createHmac('sha256', secret).update(text).digest()`.
 */
export function hmacSha256Into(secret: string, text: string, out: Uint8Array): Uint8Array {
  const key = preparedKey(secret);
  // UTF-8 takes at most 3 bytes per UTF-16 unit; the padding at most 72 more.
  const room = text.length * 3 + BLOCK + 9;
  if (message.length < room) message = Buffer.alloc(Math.max(room, message.length * 2));
  const length = message.write(text, 0, 'utf8');
  const end = pad(message, length, BLOCK);
  state.set(key.inner);
  for (let offset = 0; offset < end; offset += BLOCK) compress(state, message, offset);
  writeWords(state, outerBlock, 0);
  pad(outerBlock, 32, BLOCK);
  state.set(key.outer);
  compress(state, outerBlock, 0);
  writeWords(state, out, 0);
  return out;
}
