// The debug-event port: what an operator console shows of one app, live. Emit sites on hot paths test one boolean
// (`active`) before building anything, so a server nobody watches pays a property read per event and nothing else.

/** One thing that happened to an app, as a console shows it. */
export type DebugEvent =
  | { readonly kind: 'connection_opened'; readonly socketId: string; readonly origin?: string | undefined }
  | { readonly kind: 'connection_closed'; readonly socketId: string; readonly code: number }
  | { readonly kind: 'subscribed'; readonly socketId: string; readonly channel: string }
  | { readonly kind: 'unsubscribed'; readonly socketId: string; readonly channel: string }
  /** An event published through the REST API (or `server.publish`); `size` is the byte length of `data`. */
  | { readonly kind: 'api_message'; readonly channel: string; readonly event: string; readonly size: number }
  | {
      readonly kind: 'client_event';
      readonly socketId: string;
      readonly channel: string;
      readonly event: string;
      readonly size: number;
    }
  /** A webhook request answered 2xx; reported by the app from the webhook dispatcher. */
  | {
      readonly kind: 'webhook_sent';
      readonly url: string;
      readonly status: number;
      readonly attempt: number;
      readonly latencyMs: number;
      readonly events: number;
    }
  /** A webhook request that failed (retried later, or given up). */
  | {
      readonly kind: 'webhook_failed';
      readonly url: string;
      readonly status?: number | undefined;
      readonly error?: string | undefined;
      readonly attempt: number;
      readonly latencyMs: number;
      readonly events: number;
      readonly gaveUp: boolean;
    };

/** The kinds of {@link DebugEvent}. */
export type DebugEventKind = DebugEvent['kind'];

/** Every kind of debug event, for routes that filter by kind (checked below to name each kind of the union once). */
export const DEBUG_EVENT_KINDS = [
  'connection_opened',
  'connection_closed',
  'subscribed',
  'unsubscribed',
  'api_message',
  'client_event',
  'webhook_sent',
  'webhook_failed',
] as const satisfies readonly DebugEventKind[];
// A kind added to the union but not to the list fails to compile here.
const everyKindListed: Exclude<DebugEventKind, (typeof DEBUG_EVENT_KINDS)[number]> extends never
  ? true
  : never = true;
void everyKindListed;

/** A debug event with when and where it happened. */
export type DebugRecord = DebugEvent & {
  readonly appId: string;
  /** Milliseconds since the epoch. */
  readonly at: number;
  /** The cluster node id of the server it happened on. */
  readonly node: string;
};

/** Called with each debug record of a watched app; must not throw (a throw is logged and ignored). */
export type DebugListener = (record: DebugRecord) => void;

/** What a host (an operator console) sees of the debug port: `server.debug`. */
export interface DebugPort {
  /**
   * Starts receiving an app's debug records (from every node, when clustered); returns a function that stops.
   * @example
   * const stop = server.debug.subscribe('app-1', (record) => console.log(record.kind));
   */
  subscribe(appId: string, listener: DebugListener): () => void;
  /** Reports an event this server did not see itself (a webhook delivery); ignored while nobody watches the app. */
  report(appId: string, event: DebugEvent): void;
  /** Whether anything (here or on another node) watches the app now. */
  watching(appId: string): boolean;
}
