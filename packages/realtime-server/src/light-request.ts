// A Request that is cheap to build. Constructing undici's Request costs more than the REST handlers themselves,
// so the bridge hands handlers this object instead: `method`, `url`, `headers` and the body readers are plain
// fields; anything else (clone, formData, signal, …) builds the real Request once, on first use, and delegates.

const REAL = Symbol('real request');

interface LightFields {
  readonly method: string;
  readonly url: string;
  readonly headers: Headers;
  readonly bytes: Uint8Array | undefined;
  [REAL]?: Request;
}

function real(self: LightFields): Request {
  let request = self[REAL];
  if (!request) {
    const init: RequestInit = { method: self.method, headers: self.headers };
    if (self.bytes && self.bytes.length > 0) init.body = self.bytes;
    request = new Request(self.url, init);
    self[REAL] = request;
  }
  return request;
}

const prototype: Record<PropertyKey, unknown> = {
  get body(): ReadableStream<Uint8Array> | null {
    const self = this as unknown as LightFields;
    if (self[REAL]) return self[REAL].body;
    const bytes = self.bytes;
    if (!bytes || bytes.length === 0) return null;
    return new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes);
        controller.close();
      },
    });
  },
  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = (this as unknown as LightFields).bytes ?? new Uint8Array(0);
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  },
  async text(): Promise<string> {
    const bytes = (this as unknown as LightFields).bytes;
    return bytes ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8') : '';
  },
  async json(): Promise<unknown> {
    return JSON.parse(await (this as unknown as { text(): Promise<string> }).text());
  },
};

// Every other member of Request.prototype goes to the real request, built on demand.
for (const key of Reflect.ownKeys(Request.prototype)) {
  if (key === 'constructor' || key in prototype || key === 'method' || key === 'url' || key === 'headers')
    continue;
  Object.defineProperty(prototype, key, {
    get() {
      const value = Reflect.get(real(this as LightFields), key);
      return typeof value === 'function' ? value.bind(real(this as LightFields)) : value;
    },
  });
}
Object.setPrototypeOf(prototype, Request.prototype);

/** Builds a request for a fetch handler without paying for undici's Request unless the handler needs it. */
export function createLightRequest(
  method: string,
  url: string,
  headers: Headers,
  bytes: Uint8Array | undefined,
): Request {
  const fields: LightFields = { method, url, headers, bytes };
  return Object.setPrototypeOf(fields, prototype) as unknown as Request;
}
