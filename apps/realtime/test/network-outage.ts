import { type TcpProxy, type TcpTarget, until } from '@herald/test-kit';
import type { PusherClient } from './pusher-client.js';

/**
 * Takes the network between a pusher-js client and the server away while `away` runs, then gives it back (through
 * `backTo` when given: a reconnect that lands on another node); pusher-js comes back by itself. The proxy goes silent,
 * as a real outage does (no close crosses it, either way), and when the network is back the old connection is found
 * dead (the proxy drops it), as after a change of network: pusher-js sees the close then and tries again a second
 * later, through.
 *
 * Why not a cut that closes the socket at once: pusher-js then tries again a second later while the network is still
 * away, and once that attempt fails its connection strategy waits out a 15 s step timeout before the next one
 * (`SequentialStrategy` without `failFast`), however short the outage: the same 15 s whether the attempt is refused,
 * reset or left hanging. The Echo and browser tests cut that way and give the network back within that second.
 */
export async function networkOutage(
  proxy: TcpProxy,
  pusher: PusherClient,
  away: () => Promise<unknown>,
  backTo?: TcpTarget,
): Promise<void> {
  const before = pusher.connection.socket_id;
  let left = false;
  const onChange = ({ current }: { current: string }) => {
    if (current !== 'connected') left = true;
  };
  pusher.connection.bind('state_change', onChange);
  proxy.freeze();
  await away();
  if (backTo) proxy.retarget(backTo);
  proxy.restore();
  await until(() => left, { what: 'pusher-js to see the connection gone' });
  pusher.connection.unbind('state_change', onChange);
  await until(() => pusher.connection.state === 'connected' && pusher.connection.socket_id !== before, {
    what: 'pusher-js to reconnect',
    limitMs: 90_000,
  });
  // Connected is not yet subscribed: pusher-js sends its subscribes on the new connection, and an event published
  // before the server confirmed one misses it (a client without the plugin never gets it back).
  await until(() => pusher.allChannels().every((channel) => channel.subscribed), {
    what: 'pusher-js to subscribe again',
  });
}
