import { signChannelAuth } from '@herald/protocol-core';
import { until } from '@herald/test-kit';
import WebSocket from 'ws';

/** The app the raw sockets sign subscriptions for. */
export interface SigningApp {
  readonly key: string;
  readonly secret: string;
}

/** A raw socket that records every frame (data decoded as pusher-js would). */
export async function socket(
  port: number,
  path = '',
  app: SigningApp = { key: 'shop-key', secret: 'shop-secret' },
) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}${path}/app/${app.key}?protocol=7`);
  const frames: Array<{ event: string; channel?: string; data?: unknown }> = [];
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  ws.on('message', (raw) => {
    const frame = JSON.parse(raw.toString());
    if (typeof frame.data === 'string') {
      try {
        frame.data = JSON.parse(frame.data);
      } catch {
        // Not JSON: keep the string.
      }
    }
    frames.push(frame);
  });
  const waitFor = async (test: (frame: (typeof frames)[number]) => boolean, ms = 20_000) => {
    await until(() => frames.some(test), { what: 'a matching frame', limitMs: ms });
    return frames.find(test) as (typeof frames)[number];
  };
  const established = await waitFor((frame) => frame.event === 'pusher:connection_established');
  const socketId = (established.data as { socket_id: string }).socket_id;
  const send = (frame: unknown) => ws.send(JSON.stringify(frame));
  const subscribe = async (channel: string, channelData?: string) => {
    const auth =
      channel.startsWith('private-') || channel.startsWith('presence-')
        ? signChannelAuth(app, { socketId, channel, channelData })
        : undefined;
    send({ event: 'pusher:subscribe', data: { channel, auth, channel_data: channelData } });
    await waitFor(
      (frame) => frame.event === 'pusher_internal:subscription_succeeded' && frame.channel === channel,
    );
  };
  return { ws, frames, closed, waitFor, socketId, send, subscribe };
}
