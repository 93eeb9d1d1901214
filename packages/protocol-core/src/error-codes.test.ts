import { describe, expect, it } from 'vitest';
import { closesConnection, ErrorCode, type ReconnectAction, reconnectAction } from './error-codes.js';

describe('ErrorCode', () => {
  it.each([
    ['SslOnly', 4000],
    ['AppNotFound', 4001],
    ['AppDisabled', 4003],
    ['OverConnectionQuota', 4004],
    ['PathNotFound', 4005],
    ['InvalidVersion', 4006],
    ['UnsupportedProtocol', 4007],
    ['NoProtocol', 4008],
    ['Unauthorized', 4009],
    ['OverCapacity', 4100],
    ['Reconnect', 4200],
    ['PongNotReceived', 4201],
    ['ClosedAfterInactivity', 4202],
    ['ClientEventRejected', 4301],
    ['GenericError', 4302],
  ] as const)('gives %s the Pusher code %i', (name, code) => {
    expect(ErrorCode[name]).toBe(code);
  });

  it('holds only codes in the 4000-4399 range Pusher reserves', () => {
    for (const code of Object.values(ErrorCode)) {
      expect(code).toBeGreaterThanOrEqual(4000);
      expect(code).toBeLessThan(4400);
    }
  });

  it('holds no code twice', () => {
    const codes = Object.values(ErrorCode);
    expect(new Set(codes).size).toBe(codes.length);
  });
});

describe('closesConnection', () => {
  it.each([4000, 4001, 4003, 4004, 4009, 4099, 4100, 4199, 4200, 4201, 4202, 4299])(
    'closes with %i',
    (code) => {
      expect(closesConnection(code)).toBe(true);
    },
  );

  it.each([4300, 4301, 4302, 4399])(
    'never closes with %i, which pusher-js would treat as refused',
    (code) => {
      expect(closesConnection(code)).toBe(false);
    },
  );

  it.each([1000, 1006, 3999, 4400, 5000])('does not treat %i as a Pusher close code', (code) => {
    expect(closesConnection(code)).toBe(false);
  });

  it('keeps the socket open for every 43xx code in the table', () => {
    const codes = Object.values(ErrorCode).filter((code) => code >= 4300);
    expect(codes.length).toBeGreaterThan(0);
    for (const code of codes) expect(closesConnection(code)).toBe(false);
  });
});

describe('reconnectAction', () => {
  // Mirrors pusher-js `Protocol.getCloseAction` (src/core/connection/protocol/protocol.ts).
  it.each<[number, ReconnectAction]>([
    [1000, 'ignored'],
    [1001, 'ignored'],
    [1002, 'backoff'],
    [1003, 'backoff'],
    [1004, 'backoff'],
    [1005, 'ignored'],
    [1006, 'ignored'],
    [1011, 'ignored'],
    [3999, 'ignored'],
    [4000, 'tls-only'],
    [4001, 'refused'],
    [4004, 'refused'],
    [4009, 'refused'],
    [4099, 'refused'],
    [4100, 'backoff'],
    [4199, 'backoff'],
    [4200, 'reconnect-now'],
    [4201, 'reconnect-now'],
    [4299, 'reconnect-now'],
    [4300, 'refused'],
    [4301, 'refused'],
    [4399, 'refused'],
  ])('answers close code %i with %s', (code, action) => {
    expect(reconnectAction(code)).toBe(action);
  });
});
