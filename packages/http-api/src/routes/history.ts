import { RecoveryField } from '@herald/protocol-core';
import type { Handler } from 'hono';
import type { HttpApiEnv } from '../api-env.js';
import type { HistoryQuery, RealtimeBackend } from '../backend.js';
import { HttpApiError } from '../errors.js';
import { checkedChannelName } from '../internal/request-input.js';
import { sendJson } from '../internal/respond.js';

/** Events answered when the request names no `limit`. */
export const DEFAULT_HISTORY_LIMIT = 100;
/** Most events one history request may ask for. */
export const MAX_HISTORY_LIMIT = 1000;

/** One kept event as the history route answers it. */
interface HistoryEvent {
  readonly serial: number;
  readonly event: string;
  readonly data?: string;
  readonly user_id?: string;
}

/**
 * Creates `GET /apps/{id}/channels/{name}/history?after=<serial>&limit=<n>`: the channel's kept events after a
 * serial, oldest first, with its position and the first serial still held, for backends catching up.
 */
export function listHistory(
  backend: RealtimeBackend,
): Handler<HttpApiEnv, '/apps/:appId/channels/:channelName/history'> {
  return async (c) => {
    const app = c.get('app');
    const name = checkedChannelName(c.req.param('channelName'), app);
    const query: HistoryQuery = {
      afterSerial: wholeNumber('after', c.req.query('after'), { fallback: 0, min: 0 }),
      limit: wholeNumber('limit', c.req.query('limit'), {
        fallback: DEFAULT_HISTORY_LIMIT,
        min: 1,
        max: MAX_HISTORY_LIMIT,
      }),
    };
    const page = backend.history ? await backend.history(app.id, name, query) : undefined;
    if (page === undefined) {
      throw new HttpApiError(
        'history_disabled',
        `history is off for app ${app.id}: set applications[].history.enabled to keep channel events`,
      );
    }
    const events = page.frames.map(eventOf);
    const last = events.at(-1)?.serial ?? query.afterSerial;
    return sendJson(c, {
      events,
      position: { serial: page.position.serial, epoch: page.position.epoch },
      first_serial: page.firstSerial,
      // More kept events follow this page: ask again with `after` set to the last serial answered.
      has_more: events.length > 0 && last < page.position.serial,
    });
  };
}

function wholeNumber(
  field: string,
  raw: string | undefined,
  bounds: { readonly fallback: number; readonly min: number; readonly max?: number },
): number {
  if (raw === undefined || raw === '') return bounds.fallback;
  const value = /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
  const max = bounds.max ?? Number.MAX_SAFE_INTEGER;
  if (!(value >= bounds.min && value <= max)) {
    const range = bounds.max === undefined ? `at least ${bounds.min}` : `from ${bounds.min} to ${max}`;
    throw new HttpApiError('invalid_body', `${field}: must be a whole number ${range}`, { field });
  }
  return value;
}

/** A kept frame read back into the event it carries: name, data exactly as triggered, user id, serial. */
function eventOf(frame: string): HistoryEvent {
  const fields = JSON.parse(frame) as Record<string, unknown>;
  const { event, data, user_id: userId } = fields;
  return {
    serial: fields[RecoveryField.Serial] as number,
    event: event as string,
    ...(typeof data === 'string' ? { data } : {}),
    ...(typeof userId === 'string' ? { user_id: userId } : {}),
  };
}
