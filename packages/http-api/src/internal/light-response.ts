// A Response that is cheap to build. undici's Response turns every string body into a web stream, which costs
// more than answering a REST call. This object keeps the body as a string: hosts that know the
// `herald.http.body` symbol (the real-time server's HTTP bridge) read it directly; anything else — `text()`,
// `body`, `clone()` — gets a real Response built on first use, so it behaves as a Response everywhere.

/** The global symbol under which a light response carries its body text. */
export const RESPONSE_BODY = Symbol.for('herald.http.body');

const REAL = Symbol('real response');

// The class's prototype chain reaches Response.prototype (set below), and every Response member it does not
// define itself is delegated to the real response: the interface merged with it says so to TypeScript.
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the members come from the prototype chain set below.
class LightResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly [RESPONSE_BODY]: string;
  [REAL]: Response | undefined = undefined;

  constructor(body: string, status: number, headers: Headers) {
    this.status = status;
    this.headers = headers;
    this[RESPONSE_BODY] = body;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  get statusText(): string {
    return '';
  }

  get type(): Response['type'] {
    return 'default';
  }

  get url(): string {
    return '';
  }

  get redirected(): boolean {
    return false;
  }

  async text(): Promise<string> {
    return this[RESPONSE_BODY];
  }

  async json(): Promise<unknown> {
    return JSON.parse(this[RESPONSE_BODY]);
  }
}

interface LightResponse extends Response {}

function real(self: LightResponse): Response {
  let response = self[REAL];
  if (!response) {
    response = new Response(self[RESPONSE_BODY], { status: self.status, headers: self.headers });
    self[REAL] = response;
  }
  return response;
}

for (const key of Reflect.ownKeys(Response.prototype)) {
  if (key === 'status' || key === 'headers' || Object.hasOwn(LightResponse.prototype, key)) continue;
  Object.defineProperty(LightResponse.prototype, key, {
    get(this: LightResponse) {
      const target = real(this);
      const value = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
Object.setPrototypeOf(LightResponse.prototype, Response.prototype);

/** A text response that behaves as a Response and whose body the HTTP bridge can take without streams. */
export function createTextResponse(body: string, status: number, headers: Headers): Response {
  return new LightResponse(body, status, headers);
}
