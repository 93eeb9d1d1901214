import { describe, expect, it } from 'vitest';
import { createTextResponse, RESPONSE_BODY } from './light-response.js';

describe('createTextResponse', () => {
  const make = () =>
    createTextResponse('{"ok":"é"}', 201, new Headers({ 'content-type': 'application/json' }));

  it('is a Response with its status and headers', () => {
    const response = make();
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.headers.get('content-type')).toBe('application/json');
  });

  it('hands its body text over under the global symbol', () => {
    expect((make() as unknown as Record<symbol, unknown>)[RESPONSE_BODY]).toBe('{"ok":"é"}');
    expect(RESPONSE_BODY).toBe(Symbol.for('herald.http.body'));
  });

  it('reads as text and JSON', async () => {
    expect(await make().text()).toBe('{"ok":"é"}');
    expect(await make().json()).toEqual({ ok: 'é' });
  });

  it('builds the real Response for streams, bytes and clones', async () => {
    const response = make();
    const reader = response.body?.getReader();
    const chunk = await reader?.read();
    expect(new TextDecoder().decode(chunk?.value)).toBe('{"ok":"é"}');
    expect(new TextDecoder().decode(await make().arrayBuffer())).toBe('{"ok":"é"}');
    expect(await make().clone().text()).toBe('{"ok":"é"}');
  });

  it('reports an error status as not ok', () => {
    expect(createTextResponse('{}', 404, new Headers()).ok).toBe(false);
  });
});
