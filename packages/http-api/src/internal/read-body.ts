import { fail, ok, type Result } from '@herald/protocol-core';

/** The body was larger than allowed; reading stopped at the limit. */
export interface BodyTooLarge {
  readonly limit: number;
}

const EMPTY = new Uint8Array(0);

/**
 * Reads a request body up to `limit` bytes. A declared Content-Length over the limit is refused before reading,
 * and a streamed body is cancelled as soon as it passes the limit, so no more than one chunk past it is read.
 */
export async function readBodyWithin(
  request: Request,
  limit: number,
): Promise<Result<Uint8Array, BodyTooLarge>> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) return fail({ limit });
  if (declared !== null) {
    // A declared length within the limit bounds what can be read: take the body whole, without a stream
    // reader (the real-time server's bridge hands over bytes it already holds).
    const bytes = new Uint8Array(await request.arrayBuffer());
    return bytes.byteLength > limit ? fail({ limit }) : ok(bytes);
  }
  if (request.body === null) return ok(EMPTY);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return fail({ limit });
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return ok(chunks[0] as Uint8Array);
  return ok(Buffer.concat(chunks));
}
