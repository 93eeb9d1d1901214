import type { ClusterChannelChange, ClusterDelivery } from '@herald/protocol-core';
import { fence, until } from '@herald/test-kit';
import type { StartedNode } from './cluster-nodes.js';

/** What a fence needs of a node: its adapter and what its listener recorded. */
type FencedNode = Pick<StartedNode, 'adapter' | 'listener'>;

// Fences for the adapter's negative assertions: a marker sent after the action on the same ordered path, so once
// it arrived, anything the action caused has too; the markers are taken out again so the test's own assertions
// read the lists as before.

let markers = 0;

/** Whether a delivery is one of the fence markers. */
export const isMarkerDelivery = (delivery: ClusterDelivery) => delivery.frame.includes('"event":"fence-');

/**
 * Broadcasts a marker frame on `channel` from `from` and waits until each of `to` got it (the same channel topic
 * as the traffic before it); then removes the markers from their deliveries.
 */
export async function fenceDeliveries(
  from: FencedNode,
  to: readonly FencedNode[],
  channel: { readonly appId: string; readonly channel: string },
): Promise<void> {
  const frame = `{"event":"fence-${++markers}","channel":"${channel.channel}","data":"{}"}`;
  await fenceAll(
    to.map((node) => () => node.listener.deliveries),
    () => from.adapter.broadcast({ type: 'deliver', delivery: { ...channel, frame } }),
    (delivery) => delivery.frame === frame,
  );
  for (const node of to) removeWhere(node.listener.deliveries, isMarkerDelivery);
}

/**
 * Has each node occupy a marker channel of its own and waits until it reported that (its occupancy writes are
 * answered in order, so every change an earlier write caused is reported by then); then removes the markers.
 */
export async function fenceChannelChanges(appId: string, nodes: readonly FencedNode[]): Promise<void> {
  const marker = `fence-${++markers}`;
  await Promise.all(
    nodes.map((node, i) =>
      fence({
        received: () => node.listener.changes,
        sendMarker: () => node.adapter.setLocalSubscriptions(appId, `${marker}-${i}`, 1),
        isMarker: (change: ClusterChannelChange) => change.channel === `${marker}-${i}`,
        what: 'a marker channel change',
      }),
    ),
  );
  for (const node of nodes)
    removeWhere(node.listener.changes, (change) => change.channel.startsWith('fence-'));
}

/**
 * Has `from` sign in a marker user and waits until every node was told it came online (published after any user
 * change `from` caused before, on the same path); then removes the markers.
 */
export async function fenceUserChanges(
  appId: string,
  from: FencedNode,
  nodes: readonly FencedNode[],
): Promise<void> {
  const marker = `fence-${++markers}`;
  await fenceAll(
    nodes.map((node) => () => node.listener.users),
    () => from.adapter.setLocalUser?.(appId, marker, true),
    (user) => user.userId === marker,
  );
  for (const node of nodes) removeWhere(node.listener.users, (user) => user.userId.startsWith('fence-'));
}

/**
 * One marker for several receivers: each stream is read from where it stood before the marker was sent, so a
 * receiver the marker reached first is not waited on again.
 */
async function fenceAll<T>(
  streams: ReadonlyArray<() => readonly T[]>,
  sendMarker: () => unknown,
  isMarker: (item: T) => boolean,
): Promise<void> {
  const starts = streams.map((stream) => stream().length);
  await sendMarker();
  await Promise.all(
    streams.map((stream, i) =>
      until(() => stream().slice(starts[i]).some(isMarker), 'the fence marker on every receiver'),
    ),
  );
}

function removeWhere<T>(items: T[], test: (item: T) => boolean): void {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i] as T)) items.splice(i, 1);
}
