import { describe, expect, it } from 'vitest';
import {
  type ChannelKind,
  channelKind,
  describeChannel,
  SERVER_TO_USER_PREFIX,
  serverToUserChannel,
  validateChannelName,
} from './channel-name.js';

describe('channelKind', () => {
  it.each<[string, ChannelKind]>([
    ['news', 'public'],
    ['private-orders', 'private'],
    ['presence-room', 'presence'],
    ['private-encrypted-inbox', 'private-encrypted'],
    ['cache-prices', 'cache'],
    ['private-cache-prices', 'private-cache'],
    ['private-encrypted-cache-x', 'private-encrypted-cache'],
    ['presence-cache-x', 'presence-cache'],
    ['#server-to-user-1', 'server-to-user'],
  ])('reads %s as %s', (name, kind) => {
    expect(channelKind(name)).toBe(kind);
  });

  it.each([
    ['a prefix in the middle', 'foo-private-x'],
    ['a presence prefix in the middle', 'room-presence-1'],
    ['a prefix without its hyphen', 'privateroom'],
    ['presence without its hyphen', 'presenceroom'],
    ['cache without its hyphen', 'cacheprices'],
    ['a prefix in another case', 'Private-orders'],
    ['an upper-case prefix', 'PRESENCE-room'],
    ['a prefix after a space', ' private-orders'],
    ['a server-to-user name without the hash', 'server-to-user-1'],
    ['a hash in the middle', 'x#server-to-user-1'],
  ])('treats %s as public (%s)', (_name, name) => {
    expect(channelKind(name)).toBe('public');
  });

  it('reads the bare encrypted prefix without a name as encrypted, not private', () => {
    expect(channelKind('private-encrypted-')).toBe('private-encrypted');
  });
});

describe('describeChannel', () => {
  it.each<
    [
      string,
      { requiresAuth: boolean; presence: boolean; encrypted: boolean; cache: boolean; clientEvents: boolean },
    ]
  >([
    ['news', { requiresAuth: false, presence: false, encrypted: false, cache: false, clientEvents: false }],
    [
      'private-a',
      { requiresAuth: true, presence: false, encrypted: false, cache: false, clientEvents: true },
    ],
    [
      'presence-a',
      { requiresAuth: true, presence: true, encrypted: false, cache: false, clientEvents: true },
    ],
    [
      'private-encrypted-a',
      { requiresAuth: true, presence: false, encrypted: true, cache: false, clientEvents: false },
    ],
    ['cache-a', { requiresAuth: false, presence: false, encrypted: false, cache: true, clientEvents: false }],
    [
      'private-cache-a',
      { requiresAuth: true, presence: false, encrypted: false, cache: true, clientEvents: true },
    ],
    [
      'private-encrypted-cache-a',
      { requiresAuth: true, presence: false, encrypted: true, cache: true, clientEvents: false },
    ],
    [
      'presence-cache-a',
      { requiresAuth: true, presence: true, encrypted: false, cache: true, clientEvents: true },
    ],
    [
      'foo-private-x',
      { requiresAuth: false, presence: false, encrypted: false, cache: false, clientEvents: false },
    ],
    [
      'privateroom',
      { requiresAuth: false, presence: false, encrypted: false, cache: false, clientEvents: false },
    ],
  ])('tells what %s requires and allows', (name, traits) => {
    expect(describeChannel(name)).toMatchObject(traits);
  });

  it('allows no client events on a server-to-user channel', () => {
    expect(describeChannel('#server-to-user-1')).toMatchObject({
      kind: 'server-to-user',
      clientEvents: false,
    });
  });
});

describe('validateChannelName', () => {
  it('accepts every character Pusher allows', () => {
    const name = 'ABCXYZabcxyz0189_-=@,.;';
    expect(validateChannelName(name)).toEqual({ ok: true, value: name });
  });

  it.each([
    'private-orders.42',
    'presence-room;1',
    'private-encrypted-cache-a=b',
    'user@example.com',
    'a,b',
    '#server-to-user-42',
    '#server-to-user-ann@example.com',
  ])('accepts %s', (name) => {
    expect(validateChannelName(name)).toEqual({ ok: true, value: name });
  });

  it.each([
    ['a space', 'private orders'],
    ['a colon', 'private-a:b'],
    ['a slash', 'a/b'],
    ['an asterisk', 'news*'],
    ['a percent sign', 'a%20b'],
    ['a plus sign', 'a+b'],
    ['a question mark', 'a?'],
    ['an exclamation mark', 'a!'],
    ['a quote', 'a"b'],
    ['a pipe', 'auth0|123'],
    ['a newline', 'a\nb'],
    ['a tab', 'a\tb'],
    ['an accented letter', 'café'],
    ['an emoji', 'party-🎉'],
    ['a full-width digit', 'room-１'],
    ['a hash that does not start #server-to-user-', '#general'],
    ['two leading hashes', '##server-to-user-1'],
    ['a hash after the start', 'a#server-to-user-1'],
    ['a second hash in a server-to-user name', '#server-to-user-#1'],
  ])('refuses a name with %s', (_name, name) => {
    expect(validateChannelName(name)).toEqual({
      ok: false,
      error: { reason: 'invalid_characters', message: expect.any(String) },
    });
  });

  it('refuses an empty name', () => {
    expect(validateChannelName('')).toEqual({
      ok: false,
      error: { reason: 'empty', message: expect.any(String) },
    });
  });

  it('accepts a name of exactly 164 characters, Pusher’s limit', () => {
    expect(validateChannelName('a'.repeat(164)).ok).toBe(true);
  });

  it('refuses a name of 165 characters', () => {
    expect(validateChannelName('a'.repeat(165))).toEqual({
      ok: false,
      error: { reason: 'too_long', message: expect.stringContaining('164') },
    });
  });

  it('applies a configured maximum length', () => {
    expect(validateChannelName('a'.repeat(200), 200).ok).toBe(true);
    expect(validateChannelName('a'.repeat(201), 200).ok).toBe(false);
    expect(validateChannelName('a'.repeat(11), 10).ok).toBe(false);
  });

  it('counts the server-to-user prefix towards the length', () => {
    const name = `#server-to-user-${'1'.repeat(164 - 16)}`;
    expect(name).toHaveLength(164);
    expect(validateChannelName(name).ok).toBe(true);
    expect(validateChannelName(`${name}1`).ok).toBe(false);
  });
});

describe('serverToUserChannel', () => {
  it('names the personal channel pusher-js subscribes to after sign-in', () => {
    expect(serverToUserChannel('42')).toBe('#server-to-user-42');
    expect(SERVER_TO_USER_PREFIX).toBe('#server-to-user-');
  });

  it('gives a name of the server-to-user kind', () => {
    expect(channelKind(serverToUserChannel('ann'))).toBe('server-to-user');
  });
});
