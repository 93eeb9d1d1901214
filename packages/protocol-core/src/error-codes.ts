/**
 * Pusher Channels error and close codes (protocol v7, "Error Codes" section of the WebSocket protocol page).
 *
 * pusher-js decides what to do from the close code: 4000-4099 means "do not reconnect", 4100-4199 "reconnect
 * after a back-off", 4200-4299 "reconnect at once", and 4300+ "do not reconnect". So 43xx codes are sent as
 * `pusher:error` frames only; closing with one would leave the client offline for good.
 */
export const ErrorCode = {
  /** Only TLS connections are accepted; the client should retry over wss. */
  SslOnly: 4000,
  /** No application has the key in the URL. */
  AppNotFound: 4001,
  /** The application exists but is disabled. */
  AppDisabled: 4003,
  /** The application is over its connection quota. */
  OverConnectionQuota: 4004,
  /** The request path is not one the server serves. */
  PathNotFound: 4005,
  /** The `protocol` query parameter is not a valid version string. */
  InvalidVersion: 4006,
  /** The `protocol` version is not supported. */
  UnsupportedProtocol: 4007,
  /** No `protocol` version was supplied. */
  NoProtocol: 4008,
  /** The connection is not authorized: origin refused, sign-in failed, or terminated by the application. */
  Unauthorized: 4009,
  /** The server is over capacity; the client reconnects after a back-off. */
  OverCapacity: 4100,
  /** Generic "reconnect now": used for restart and graceful shutdown. */
  Reconnect: 4200,
  /** The client did not answer a ping in time. */
  PongNotReceived: 4201,
  /** The connection was closed after a period of inactivity. */
  ClosedAfterInactivity: 4202,
  /** A client event was rejected (not allowed, over a rate limit, or malformed). The socket stays open. */
  ClientEventRejected: 4301,
  /** A generic error that keeps the socket open (malformed frame, unknown event). */
  GenericError: 4302,
} as const;

/** One of the error codes in {@link ErrorCode}. */
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * Tells whether the server closes the socket after sending an error with this code.
 * Codes 4000-4299 close (with the same code); 4300 and above never close.
 */
export function closesConnection(code: number): boolean {
  return code >= 4000 && code < 4300;
}

/** What a pusher-js client does after the socket is closed with a code. */
export type ReconnectAction = 'refused' | 'backoff' | 'reconnect-now' | 'tls-only' | 'ignored';

/** Maps a close code to the reaction pusher-js has to it (mirrors `Protocol.getCloseAction`). */
export function reconnectAction(code: number): ReconnectAction {
  // 1002 protocol error, 1003 unsupported data and 1004 (reserved, "too large" in pusher-js) make it back off.
  if (code < 4000) return code >= 1002 && code <= 1004 ? 'backoff' : 'ignored';
  if (code === 4000) return 'tls-only';
  if (code < 4100) return 'refused';
  if (code < 4200) return 'backoff';
  if (code < 4300) return 'reconnect-now';
  return 'refused';
}
