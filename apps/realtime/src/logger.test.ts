import { describe, expect, it } from 'vitest';
import { DEFAULT_SCOPES, isScopeEnabled } from './logger.js';

describe('isScopeEnabled', () => {
  it('follows the nearest configured parent of a dotted scope', () => {
    const switches = { 'socket.connection': false, 'socket.connection.ping': true };
    expect(isScopeEnabled('socket.connection.pong', switches, false)).toBe(false);
    expect(isScopeEnabled('socket.connection.ping', switches, false)).toBe(true);
  });

  it('turns every switched-off scope on in debug mode', () => {
    expect(isScopeEnabled('socket.channel', DEFAULT_SCOPES, false)).toBe(false);
    expect(isScopeEnabled('socket.channel', DEFAULT_SCOPES, true)).toBe(true);
  });

  it('keeps the server start-up scopes on by default', () => {
    expect(isScopeEnabled('command.server.start', DEFAULT_SCOPES, false)).toBe(true);
    expect(isScopeEnabled('socket.server', DEFAULT_SCOPES, false)).toBe(true);
  });

  it('logs a scope nobody configured', () => {
    expect(isScopeEnabled('custom.thing', {}, false)).toBe(true);
  });
});
