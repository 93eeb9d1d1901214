/** Where a live connection asks for its grant, and with which headers and cookies. */
export interface AuthoriseTarget {
  readonly authEndpoint: string;
  readonly authHeaders?: (() => Promise<Record<string, string>>) | undefined;
  readonly credentials?: RequestCredentials | undefined;
  readonly fetch?: typeof fetch | undefined;
}

/**
 * POSTs an authorisation request to `authEndpoint` with the bell's headers (a user token, or the CSRF token)
 * and cookie mode, and reads the JSON answer. @throws {Error} naming `what` and the HTTP status (also as
 * `status`) when it is refused.
 */
export async function postAuthorisation(
  target: AuthoriseTarget,
  body: URLSearchParams | string,
  what: string,
): Promise<Record<string, unknown>> {
  const doFetch = target.fetch ?? globalThis.fetch;
  const response = await doFetch(target.authEndpoint, {
    method: 'POST',
    credentials: target.credentials ?? 'same-origin',
    headers: {
      'content-type': typeof body === 'string' ? 'application/json' : 'application/x-www-form-urlencoded',
      accept: 'application/json',
      ...(await target.authHeaders?.()),
    },
    body: body.toString(),
  });
  if (!response.ok) {
    throw Object.assign(new Error(`the ${what} answered HTTP ${response.status}`), {
      status: response.status,
    });
  }
  return (await response.json()) as Record<string, unknown>;
}
