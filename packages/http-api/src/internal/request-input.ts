import { validateChannelName } from '@herald/protocol-core';
import { type ApiApp, eventLimitsOf } from '../api-app.js';
import { HttpApiError } from '../errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Parses a request body as UTF-8 JSON; throws the 400 the API answers otherwise. */
export function parseJsonBody(body: Uint8Array): unknown {
  try {
    return JSON.parse(utf8.decode(body));
  } catch (cause) {
    throw new HttpApiError('invalid_body', 'body: must be a JSON object', { field: 'body', cause });
  }
}

/** A channel name from the path, checked against the app's limits; throws the 400 the API answers otherwise. */
export function checkedChannelName(name: string, app: ApiApp): string {
  const checked = validateChannelName(name, eventLimitsOf(app).maxChannelNameLength);
  if (!checked.ok) {
    throw new HttpApiError('invalid_body', `channel_name: ${checked.error.message}`, {
      field: 'channel_name',
    });
  }
  return checked.value;
}
