// A Request that is cheap to build. Constructing undici's Request costs more than the REST handlers themselves,
// so the bridge hands handlers this object instead: `method`, `url`, `headers` and the body readers are plain
// fields; anything else (clone, formData, signal, …) builds the real Request once, on first use, and delegates.

const REAL = Symbol('real request');

// The class's prototype chain reaches Request.prototype (set below), and every Request member it does not define
// itself is delegated to the real request: the interface merged with it says so to TypeScript.
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the members come from the prototype chain set below.
class LightRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Headers;
  readonly bytes: Uint8Array | undefined;
  [REAL]: Request | undefined = undefined;

  constructor(method: string, url: string, headers: Headers, bytes: Uint8Array | undefined) {
    this.method = method;
    this.url = url;
    this.headers = headers;
    this.bytes = bytes;
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (this[REAL]) return this[REAL].body;
    const bytes = this.bytes;
    if (!bytes || bytes.length === 0) return null;
    return new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes);
        controller.close();
      },
    });
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = this.bytes ?? new Uint8Array(0);
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    const bytes = this.bytes;
    return bytes ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8') : '';
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
}

interface LightRequest extends Request {}

function real(self: LightRequest): Request {
  let request = self[REAL];
  if (!request) {
    const init: RequestInit = { method: self.method, headers: self.headers };
    if (self.bytes && self.bytes.length > 0) init.body = self.bytes;
    request = new Request(self.url, init);
    self[REAL] = request;
  }
  return request;
}

// Every other member of Request.prototype goes to the real request, built on demand.
const own = new Set<PropertyKey>(['constructor', 'method', 'url', 'headers', 'bytes']);
for (const key of Reflect.ownKeys(Request.prototype)) {
  if (own.has(key) || Object.hasOwn(LightRequest.prototype, key)) continue;
  Object.defineProperty(LightRequest.prototype, key, {
    get(this: LightRequest) {
      const target = real(this);
      const value = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
Object.setPrototypeOf(LightRequest.prototype, Request.prototype);

/** Builds a request for a fetch handler without paying for undici's Request unless the handler needs it. */
export function createLightRequest(
  method: string,
  url: string,
  headers: Headers,
  bytes: Uint8Array | undefined,
): Request {
  return new LightRequest(method, url, headers, bytes);
}
