// How a debug record reads in the live log: one line of words, and a tone for its badge.

/** A debug record as the server streams it (see `DebugRecord` in @herald/realtime-server). */
export interface LogRecord {
  readonly kind: string;
  readonly appId: string;
  readonly at: number;
  readonly node: string;
  readonly channel?: string;
  readonly socketId?: string;
  readonly event?: string;
  readonly size?: number;
  readonly code?: number;
  readonly origin?: string;
  readonly url?: string;
  readonly status?: number;
  readonly error?: string;
  readonly attempt?: number;
  readonly latencyMs?: number;
  readonly events?: number;
  readonly gaveUp?: boolean;
}

/** A record with what the log shows of it. */
export interface LogEntry extends LogRecord {
  readonly seq: number;
  readonly text: string;
  readonly tone: 'ok' | 'bad' | 'info';
}

export const KINDS = [
  'connection_opened',
  'connection_closed',
  'subscribed',
  'unsubscribed',
  'api_message',
  'client_event',
  'webhook_sent',
  'webhook_failed',
] as const;

/** The line and tone of a record. */
export function describe(record: LogRecord): { text: string; tone: LogEntry['tone'] } {
  const on = `on node ${record.node}`;
  switch (record.kind) {
    case 'connection_opened':
      return {
        text: `socket ${record.socketId}${record.origin ? ` from ${record.origin}` : ''} ${on}`,
        tone: 'ok',
      };
    case 'connection_closed':
      return { text: `socket ${record.socketId} closed with code ${record.code} ${on}`, tone: 'info' };
    case 'subscribed':
    case 'unsubscribed':
      return { text: `socket ${record.socketId} ${on}`, tone: 'info' };
    case 'api_message':
      return { text: `${record.event} (${record.size} bytes) through the REST API ${on}`, tone: 'ok' };
    case 'client_event':
      return {
        text: `${record.event} (${record.size} bytes) from socket ${record.socketId} ${on}`,
        tone: 'info',
      };
    case 'webhook_sent':
      return {
        text: `${record.events} event(s) to ${record.url}: ${record.status}, attempt ${record.attempt}, ${record.latencyMs} ms`,
        tone: 'ok',
      };
    case 'webhook_failed':
      return {
        text: `${record.events} event(s) to ${record.url}: ${record.status ?? record.error}, attempt ${record.attempt}, ${record.latencyMs} ms${record.gaveUp ? ', gave up' : ', will retry'}`,
        tone: 'bad',
      };
    default:
      return { text: JSON.stringify(record), tone: 'info' };
  }
}
