import { hash } from 'node:crypto';

// HMAC-SHA256 (RFC 2104 over FIPS 180-4) for the checks on hot paths: a signed REST call, a private or presence
// subscription. Node's `createHmac` builds a stream-capable object per call, and that setup costs far more than
// hashing a short message. Here HMAC is two calls of the one-shot `crypto.hash` (OpenSSL, with the CPU's SHA
// instructions where it has them): H(K ⊕ ipad ‖ message), then H(K ⊕ opad ‖ inner digest). The padded key is made
// once per secret, and the answer is node:crypto's, byte for byte (signature.test.ts compares them over many random
// keys and messages).
//
// `crypto.hash` takes a string as its UTF-8 bytes, and UTF-8 of a concatenation is the concatenation of the UTF-8s.
// So when K ⊕ ipad is all ASCII — any ASCII secret of at most 64 bytes, which is what apps are given — the inner
// hash is taken over the string `ipad + message` with no copy into a buffer of ours. Other secrets take the same
// route through a buffer.

const BLOCK = 64;
const DIGEST = 32;
/** The most work space a key keeps for its messages (a key whose pad is not ASCII; see below). */
const KEPT_ROOM = 16 * 1024;

/** A secret prepared for HMAC: its key XOR-ed with the inner and outer pads. */
interface PreparedKey {
  /** K ⊕ ipad as a string of single-byte characters, when every byte is ASCII; `undefined` otherwise. */
  readonly innerPad: string | undefined;
  /** K ⊕ ipad as bytes, with room behind it for messages (grown when one does not fit). */
  inner: Buffer;
  /** K ⊕ opad, then room for the inner digest. */
  readonly outer: Buffer;
}

function prepare(secret: string): PreparedKey {
  let key: Uint8Array = Buffer.from(secret, 'utf8');
  // A key longer than a block is first hashed (RFC 2104, section 2).
  if (key.length > BLOCK) key = hash('sha256', key, 'buffer');
  const inner = Buffer.alloc(BLOCK);
  const outer = Buffer.alloc(BLOCK + DIGEST);
  let ascii = true;
  for (let i = 0; i < BLOCK; i++) {
    inner[i] = (key[i] ?? 0) ^ 0x36;
    outer[i] = (key[i] ?? 0) ^ 0x5c;
    if ((inner[i] as number) >= 0x80) ascii = false;
  }
  return { innerPad: ascii ? inner.toString('latin1') : undefined, inner, outer };
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

// The last (key, head) pair's inner pad and head as one string: the checks of one route under one secret (signed
// REST calls to `POST /apps/1/events`, say) join them once, not per call. Heads are compared by content.
let lastKey: PreparedKey | undefined;
let lastHead = '';
let lastInnerHead = '';

function innerDigest(key: PreparedKey, head: string, text: string): string {
  if (key.innerPad !== undefined) {
    if (key !== lastKey || head !== lastHead) {
      lastKey = key;
      lastHead = head;
      lastInnerHead = key.innerPad + head;
    }
    // 'binary' (latin1): the digest's 32 bytes as one character each.
    return hash('sha256', lastInnerHead + text, 'binary');
  }
  const message = head + text;
  // UTF-8 takes at most 3 bytes per UTF-16 unit.
  const room = BLOCK + message.length * 3;
  // A long message (a webhook body, say) is joined once rather than grow the space this key keeps.
  if (room > KEPT_ROOM)
    return hash(
      'sha256',
      Buffer.concat([key.inner.subarray(0, BLOCK), Buffer.from(message, 'utf8')]),
      'binary',
    );
  if (key.inner.length < room) {
    const grown = Buffer.alloc(Math.max(room, key.inner.length * 2));
    key.inner.copy(grown, 0, 0, BLOCK);
    key.inner = grown;
  }
  const length = key.inner.write(message, BLOCK, 'utf8');
  return hash('sha256', key.inner.subarray(0, BLOCK + length), 'binary');
}

/**
 * HMAC-SHA256 of `head + text` (UTF-8) under `secret`, as lowercase hex: the same string as
 * `createHmac('sha256', secret).update(head + text).digest('hex')`. Give the part that repeats from call to call
 * (a request's method and path) as `head`.
 */
export function hmacSha256Hex(secret: string, text: string, head = ''): string {
  const key = preparedKey(secret);
  key.outer.write(innerDigest(key, head, text), BLOCK, 'latin1');
  return hash('sha256', key.outer, 'hex');
}
