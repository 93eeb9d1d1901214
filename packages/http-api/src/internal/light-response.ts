// A Response that is cheap to build. undici's Response turns every string body into a web stream, which costs
// more than answering a REST call. This object keeps the body as a string: hosts that know the
// `herald.http.body` symbol (the real-time server's HTTP bridge) read it directly; anything else — `text()`,
// `body`, `clone()` — gets a real Response built on first use, so it behaves as a Response everywhere.

/** The global symbol under which a light response carries its body text. */
export const RESPONSE_BODY = Symbol.for('herald.http.body');

const REAL = Symbol('real response');

interface LightFields {
  readonly status: number;
  readonly headers: Headers;
  readonly [RESPONSE_BODY]: string;
  [REAL]?: Response;
}

function real(self: LightFields): Response {
  let response = self[REAL];
  if (!response) {
    response = new Response(self[RESPONSE_BODY], { status: self.status, headers: self.headers });
    self[REAL] = response;
  }
  return response;
}

const prototype: Record<PropertyKey, unknown> = {
  get ok(): boolean {
    const status = (this as unknown as LightFields).status;
    return status >= 200 && status < 300;
  },
  get statusText(): string {
    return '';
  },
  get type(): Response['type'] {
    return 'default';
  },
  get url(): string {
    return '';
  },
  get redirected(): boolean {
    return false;
  },
  async text(): Promise<string> {
    return (this as unknown as LightFields)[RESPONSE_BODY];
  },
  async json(): Promise<unknown> {
    return JSON.parse((this as unknown as LightFields)[RESPONSE_BODY]);
  },
};

for (const key of Reflect.ownKeys(Response.prototype)) {
  if (key === 'constructor' || key in prototype || key === 'status' || key === 'headers') continue;
  Object.defineProperty(prototype, key, {
    get() {
      const target = real(this as LightFields);
      const value = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
Object.setPrototypeOf(prototype, Response.prototype);

/** A text response that behaves as a Response and whose body the HTTP bridge can take without streams. */
export function createTextResponse(body: string, status: number, headers: Headers): Response {
  const fields = { status, headers, [RESPONSE_BODY]: body };
  return Object.setPrototypeOf(fields, prototype) as unknown as Response;
}
