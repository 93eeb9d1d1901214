import { describe, expect, it } from 'vitest';
import { checkFields, parseApp, parseRow } from './columns.js';

const now = Date.parse('2026-01-01T00:00:00Z');

describe('parseRow', () => {
  it('leaves NULL columns out so the app’s defaults apply', () => {
    const row = { id: 'a', key: 'k', secret: 's', name: null, max_connections: 5, previous_secrets: [] };
    expect(parseRow(row, now)).toEqual({
      ok: true,
      value: { id: 'a', key: 'k', secret: 's', max_connections: 5 },
    });
  });

  it('names the app and the column of a value it cannot use', () => {
    expect(parseRow({ id: 'a', key: 'k', secret: 's', accept_client_events_from: 'everyone' }, now)).toEqual({
      ok: false,
      error: {
        appId: 'a',
        column: 'accept_client_events_from',
        message: 'must be "all", "members" or "none"',
      },
    });
    expect(parseRow({ id: 'a', key: 'k', secret: 's', webhooks: { url: 'x' } }, now)).toMatchObject({
      ok: false,
      error: { column: 'webhooks' },
    });
    expect(parseRow({ id: '', key: 'k', secret: 's' }, now)).toMatchObject({
      ok: false,
      error: { appId: '(no id)', column: 'id' },
    });
  });

  it('keeps previous secrets until their time and refuses malformed ones', () => {
    const previous = [
      { secret: 'old', until: '2026-01-01T00:00:30.000Z' },
      { secret: 'older', until: '2025-12-31T23:59:59.000Z' },
    ];
    expect(parseRow({ id: 'a', key: 'k', secret: 's', previous_secrets: previous }, now)).toEqual({
      ok: true,
      value: { id: 'a', key: 'k', secret: 's', previous_secrets: [{ secret: 'old', until: now + 30_000 }] },
    });
    expect(
      parseRow({ id: 'a', key: 'k', secret: 's', previous_secrets: [{ secret: 'x' }] }, now),
    ).toMatchObject({
      ok: false,
      error: { column: 'previous_secrets' },
    });
  });
});

describe('checkFields', () => {
  it('requires id, key and secret for a new app, and lets an update clear a column with null', () => {
    expect(checkFields({ id: 'a', key: 'k' }, true)).toEqual({
      ok: false,
      error: { column: 'secret', message: 'is required' },
    });
    expect(checkFields({ max_connections: null }, false)).toEqual({
      ok: true,
      value: { max_connections: null },
    });
    expect(checkFields({ secret: null }, false)).toMatchObject({ ok: false, error: { column: 'secret' } });
  });

  it('refuses keys that are not columns and values of the wrong kind', () => {
    expect(checkFields({ colour: 'red' }, false)).toMatchObject({ ok: false, error: { column: 'colour' } });
    expect(checkFields({ allowed_origins: [] }, false)).toMatchObject({
      ok: false,
      error: { column: 'allowed_origins' },
    });
    expect(checkFields({ ping_interval: 0 }, false)).toMatchObject({
      ok: false,
      error: { column: 'ping_interval' },
    });
  });
});

describe('parseApp', () => {
  it('takes a whole app, leaving null columns out so the app’s defaults apply', () => {
    expect(
      parseApp({ id: 'a', key: 'k', secret: 's', name: null, allowed_origins: ['https://a.example'] }),
    ).toEqual({
      ok: true,
      value: { id: 'a', key: 'k', secret: 's', allowed_origins: ['https://a.example'] },
    });
  });

  it('refuses a key that is not a column, a missing secret and a value of the wrong kind', () => {
    expect(parseApp({ id: 'a', key: 'k', secret: 's', colour: 'red' })).toEqual({
      ok: false,
      error: { column: 'colour', message: 'is not a column of the app table' },
    });
    expect(parseApp({ id: 'a', key: 'k' })).toEqual({
      ok: false,
      error: { column: 'secret', message: 'is required' },
    });
    expect(parseApp({ id: 'a', key: 'k', secret: 's', max_connections: 1.5 })).toEqual({
      ok: false,
      error: { column: 'max_connections', message: 'must be a positive integer' },
    });
  });
});
