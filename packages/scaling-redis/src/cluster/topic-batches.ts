import { hashSlot } from '../internal/slot.js';

/**
 * Groups topics into commands a Redis Cluster accepts (every channel of an SSUBSCRIBE/SUNSUBSCRIBE in one slot);
 * on a single Redis, one command for all of them.
 */
export function topicBatches(clusterMode: boolean, topics: readonly string[]): string[][] {
  if (!clusterMode) return topics.length ? [[...topics]] : [];
  const bySlot = new Map<number, string[]>();
  for (const topic of topics) {
    const slot = hashSlot(topic);
    const group = bySlot.get(slot);
    if (group) group.push(topic);
    else bySlot.set(slot, [topic]);
  }
  return [...bySlot.values()];
}
