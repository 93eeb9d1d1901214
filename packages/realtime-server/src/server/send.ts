import { encodeError } from '@herald/protocol-core';
import type { AppState, Socket } from './state.js';

/** Sends a frame to one open socket and counts it. */
export function send(ws: Socket, app: AppState, frame: string): void {
  const data = ws.getUserData();
  if (!data.open) return;
  ws.send(frame);
  app.metrics.sent.inc();
  app.metrics.bytesOut.inc(Buffer.byteLength(frame));
}

export function sendError(ws: Socket, app: AppState, code: number, message: string): void {
  send(ws, app, encodeError(code, message));
}

/** Sends `pusher:error` and closes with the same code; counted only when the socket belongs to an app. */
export function closeWith(ws: Socket, app: AppState | undefined, code: number, message: string): void {
  const data = ws.getUserData();
  if (!data.open) return;
  if (app) sendError(ws, app, code, message);
  else ws.send(encodeError(code, message));
  data.open = false;
  ws.end(code, message);
}

/** The transport topic of an app's channel. */
export function topicOf(app: AppState, channel: string): string {
  return app.topicPrefix + channel;
}
