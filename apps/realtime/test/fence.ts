import type Pusher from 'pusher';
import type { socket } from './raw-socket.js';

type RawSocket = Awaited<ReturnType<typeof socket>>;

let markers = 0;

/**
 * Triggers a marker event on `channel` through one node's REST API and waits until every socket got it. What that
 * node sent those sockets before (through Redis, on the same channel) has arrived by then, so the absence of a
 * frame can be asserted after it without sleeping.
 */
export async function triggerMarker(
  through: Pusher,
  channel: string,
  sockets: readonly RawSocket[],
): Promise<void> {
  const event = `marker-${++markers}`;
  await through.trigger(channel, event, {});
  await Promise.all(sockets.map((each) => each.waitFor((frame) => frame.event === event)));
}
