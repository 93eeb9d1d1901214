import { UNTIL_LIMIT_MS, until } from './until.js';

/** What `fence` needs to know about one ordered stream (a socket's frames, a listener's calls, …). */
export interface FenceOptions<T> {
  /** Everything the stream delivered so far, in arrival order. */
  readonly received: () => readonly T[];
  /** The item that must not have come; without it the fence only waits, and the test's own assertions follow. */
  readonly unwanted?: (item: T) => boolean;
  /** Causes a marker to travel the same path after the action (publish an event, send a ping, …). */
  readonly sendMarker: () => unknown;
  /** Recognises the marker when it arrives. */
  readonly isMarker: (item: T) => boolean;
  /** Names the unwanted item in the failure message. */
  readonly what?: string;
  /** How long the marker may take (30 s by default). */
  readonly limitMs?: number;
}

/**
 * Proves that an unwanted item did not come: sends a marker on the same ordered path after the action and waits
 * for it; anything the action caused has arrived before it, so if nothing unwanted came by then, nothing will.
 * Fails when the marker never arrives or when an unwanted item arrived before it (however late). `unwanted` is
 * tested against the whole stream: keep it specific, or hand `received` only the part after the action.
 */
export async function fence<T>(options: FenceOptions<T>): Promise<void> {
  const before = options.received().length;
  await options.sendMarker();
  const markerArrived = () => options.received().slice(before).some(options.isMarker);
  await until(markerArrived, { what: 'the fence marker', limitMs: options.limitMs ?? UNTIL_LIMIT_MS });
  const { unwanted } = options;
  if (!unwanted) return;
  const came = options.received().filter(unwanted);
  if (came.length > 0) {
    throw new Error(
      `fence: ${options.what ?? 'an unwanted item'} arrived before the marker: ${came.map(describe).join(', ')}`,
    );
  }
}

function describe(item: unknown): string {
  try {
    return JSON.stringify(item) ?? String(item);
  } catch {
    // Circular items (sockets, errors with links) still get named.
    return String(item);
  }
}
