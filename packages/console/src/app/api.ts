// The console's calls to its server: relative URLs (the page is served at `{path}/console/`), the session cookie
// sent by the browser, and the CSRF token on every state-changing call.

/** A failed call: the server's status and message. */
export class ConsoleApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

let csrf: { header: string; token: string } | undefined;

/** Remembers the session's CSRF token for later writes. */
export function useCsrf(header: string, token: string): void {
  csrf = { header, token };
}

/** Calls a console route and returns its JSON. @throws {ConsoleApiError} on a non-2xx answer. */
export async function call<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const method = init.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrf) headers[csrf.header] = csrf.token;
  const response = await fetch(`api/${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
  if (!response.ok) throw new ConsoleApiError(response.status, body.error?.message ?? response.statusText);
  return body as T;
}
