import { signRequest } from '@herald/protocol-core';

/** Where one app's REST API lives on a real-time server, and how a call to it is signed. */
export interface RealtimeRest {
  readonly base: URL;
  /** `/{path prefix}/apps/{id}`. */
  readonly appPath: string;
  /** The URL of a call, with Pusher's query signature. */
  signedUrl(method: 'GET' | 'POST', path: string, body?: string): URL;
}

/** The REST target of an app on a Pusher-compatible server (the base URL may carry the server's `path`). */
export function realtimeRest(options: {
  url: string;
  appId: string;
  key: string;
  secret: string;
}): RealtimeRest {
  const base = new URL(options.url);
  const prefix = base.pathname.replace(/\/+$/, '');
  const credentials = { key: options.key, secret: options.secret };
  return {
    base,
    appPath: `${prefix}/apps/${encodeURIComponent(options.appId)}`,
    signedUrl(method, path, body) {
      const query = new URLSearchParams(
        signRequest(credentials, body === undefined ? { method, path } : { method, path, body }),
      );
      return new URL(`${path}?${query}`, base);
    },
  };
}
