import { encodeChannelEvent } from '@herald/protocol-core';
import { describe, expect, it } from 'vitest';
import type { HistoryQuery } from '../backend.js';
import { createHttpApi } from '../http-api.js';
import { createMemoryBackend } from '../testing.js';

const app = { id: '1', key: 'app-key', secret: 'app-secret', enabled: true, allowedOrigins: ['*'] };
const epoch = 'e1';
const frames = [
  encodeChannelEvent({ event: 'moved', channel: 'presence-room', data: '{"to":1}' }, { serial: 7, epoch }),
  encodeChannelEvent(
    { event: 'client-typing', channel: 'presence-room', data: '{}', userId: 'u-9' },
    { serial: 8, epoch },
  ),
];

/** The API over a backend whose history answers these frames and records what it was asked. */
function apiAnswering() {
  const asked: HistoryQuery[] = [];
  const backend = {
    ...createMemoryBackend(),
    history: (_appId: string, _name: string, query: HistoryQuery) => {
      asked.push(query);
      return { position: { serial: 8, epoch }, firstSerial: 3, frames };
    },
  };
  return { api: createHttpApi({ apps: [app], backend }), asked };
}

const get = (api: ReturnType<typeof createHttpApi>, query: string) =>
  api.request(`/apps/1/channels/presence-room/history${query}`, {
    headers: { authorization: 'Bearer app-secret' },
  });

describe('GET /apps/{id}/channels/{name}/history', () => {
  it('reads each kept frame back into serial, event, data and the user id of a client event', async () => {
    const { api, asked } = apiAnswering();
    const response = await get(api, '?after=6&limit=2');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      events: [
        { serial: 7, event: 'moved', data: '{"to":1}' },
        { serial: 8, event: 'client-typing', data: '{}', user_id: 'u-9' },
      ],
      position: { serial: 8, epoch },
      first_serial: 3,
      has_more: false,
    });
    expect(asked).toEqual([{ afterSerial: 6, limit: 2 }]);
  });

  it('asks from serial 0 for 100 events when the query names neither', async () => {
    const { api, asked } = apiAnswering();
    await get(api, '');
    expect(asked).toEqual([{ afterSerial: 0, limit: 100 }]);
  });

  it('answers 409 naming the key when the backend keeps no history', async () => {
    const api = createHttpApi({ apps: [app], backend: createMemoryBackend() });
    const response = await get(api, '');
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({
      error: 'history is off for app 1: set applications[].history.enabled to keep channel events',
    });
  });
});
