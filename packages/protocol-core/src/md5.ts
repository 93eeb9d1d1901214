import { hash } from 'node:crypto';

// MD5 (RFC 1321) of a short body, for `body_md5` on signed REST calls. A call to node:crypto costs about a
// microsecond of setup whatever the size, more than hashing a trigger's few hundred bytes; bodies above
// `SHORT_BODY` go to node:crypto, which is faster per byte. The answers are node:crypto's, byte for byte
// (signature.test.ts compares them over many random bodies).

/** Above this many bytes node:crypto is the cheaper way. */
const SHORT_BODY = 1024;
const BLOCK = 64;

// The per-step constants floor(abs(sin(i + 1)) * 2^32) and shifts of RFC 1321, section 3.4.
const SINE = new Int32Array(64);
for (let i = 0; i < 64; i++) SINE[i] = Math.floor(Math.abs(Math.sin(i + 1)) * 0x100000000) | 0;
const SHIFT = new Uint8Array([
  7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9,
  14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15,
  21, 6, 10, 15, 21,
]);
const words = new Int32Array(16);
const state = new Int32Array(4);
// A Buffer like the bodies the HTTP layers hand over, so the compression function reads one kind of array.
const tail = Buffer.alloc(2 * BLOCK);

function compress(bytes: Uint8Array, offset: number): void {
  const x = words;
  for (let i = 0; i < 16; i++) {
    const j = offset + i * 4;
    // Little-endian words.
    x[i] =
      (bytes[j] as number) |
      ((bytes[j + 1] as number) << 8) |
      ((bytes[j + 2] as number) << 16) |
      ((bytes[j + 3] as number) << 24);
  }
  let a = state[0] as number;
  let b = state[1] as number;
  let c = state[2] as number;
  let d = state[3] as number;
  for (let i = 0; i < 64; i++) {
    let f: number;
    let g: number;
    if (i < 16) {
      f = (b & c) | (~b & d);
      g = i;
    } else if (i < 32) {
      f = (d & b) | (~d & c);
      g = (5 * i + 1) & 15;
    } else if (i < 48) {
      f = b ^ c ^ d;
      g = (3 * i + 5) & 15;
    } else {
      f = c ^ (b | ~d);
      g = (7 * i) & 15;
    }
    const sum = (a + f + (SINE[i] as number) + (x[g] as number)) | 0;
    const shift = SHIFT[i] as number;
    a = d;
    d = c;
    c = b;
    b = (b + ((sum << shift) | (sum >>> (32 - shift)))) | 0;
  }
  state[0] = ((state[0] as number) + a) | 0;
  state[1] = ((state[1] as number) + b) | 0;
  state[2] = ((state[2] as number) + c) | 0;
  state[3] = ((state[3] as number) + d) | 0;
}

/** MD5 of `body`, written as 16 bytes into `out` (which is returned). */
export function md5Into(body: Uint8Array, out: Uint8Array): Uint8Array {
  if (body.length > SHORT_BODY) {
    out.set(hash('md5', body, 'buffer'));
    return out;
  }
  state[0] = 0x67452301;
  state[1] = 0xefcdab89 | 0;
  state[2] = 0x98badcfe | 0;
  state[3] = 0x10325476;
  const whole = body.length - (body.length % BLOCK);
  for (let offset = 0; offset < whole; offset += BLOCK) compress(body, offset);
  // The last partial block, the 0x80 byte, zeros and the bit length (little-endian) fill one or two blocks.
  const rest = body.length - whole;
  tail.set(body.subarray(whole), 0);
  let end = rest;
  tail[end++] = 0x80;
  while (end % BLOCK !== 56) tail[end++] = 0;
  const bits = body.length * 8;
  tail[end++] = bits & 0xff;
  tail[end++] = (bits >>> 8) & 0xff;
  tail[end++] = (bits >>> 16) & 0xff;
  tail[end++] = bits >>> 24;
  // Bodies here are far below 2^29 bytes: the high word of the length is zero.
  tail[end++] = 0;
  tail[end++] = 0;
  tail[end++] = 0;
  tail[end++] = 0;
  for (let offset = 0; offset < end; offset += BLOCK) compress(tail, offset);
  for (let i = 0; i < 4; i++) {
    const word = state[i] as number;
    out[i * 4] = word & 0xff;
    out[i * 4 + 1] = (word >>> 8) & 0xff;
    out[i * 4 + 2] = (word >>> 16) & 0xff;
    out[i * 4 + 3] = word >>> 24;
  }
  return out;
}
