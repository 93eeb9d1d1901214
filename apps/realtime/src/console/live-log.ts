// The live debug log of one app as server-sent events: one `debug` event per record, a comment every few seconds
// so that proxies keep the stream open, and the debug listener removed as soon as the browser goes.

import type { DebugEventKind, DebugPort, DebugRecord } from '@herald/realtime-server';

/** What a console may narrow the stream to. */
export interface LogFilter {
  /** Only records of channels whose name contains this (records without a channel are left out). */
  readonly channel?: string | undefined;
  /** Only these kinds. */
  readonly kinds?: ReadonlySet<DebugEventKind> | undefined;
}

const KEEP_ALIVE_MS = 15_000;

function matches(record: DebugRecord, filter: LogFilter): boolean {
  if (filter.kinds && !filter.kinds.has(record.kind)) return false;
  if (!filter.channel) return true;
  return 'channel' in record && record.channel.includes(filter.channel);
}

/** An SSE response streaming an app's debug records until the client disconnects. */
export function liveLog(debug: DebugPort, appId: string, filter: LogFilter): Response {
  const encoder = new TextEncoder();
  let stop: (() => void) | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => controller.enqueue(encoder.encode(text));
      // The retry hint and a first comment open the stream at once, before any record.
      send('retry: 2000\n: watching\n\n');
      const unsubscribe = debug.subscribe(appId, (record) => {
        if (matches(record, filter)) send(`event: debug\ndata: ${JSON.stringify(record)}\n\n`);
      });
      const keepAlive = setInterval(() => send(': keep-alive\n\n'), KEEP_ALIVE_MS);
      keepAlive.unref();
      stop = () => {
        clearInterval(keepAlive);
        unsubscribe();
      };
    },
    cancel() {
      stop?.();
    },
  });
  return new Response(body, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    },
  });
}
