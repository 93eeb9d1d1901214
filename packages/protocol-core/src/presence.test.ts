import { describe, expect, it } from 'vitest';
import { PresenceRoster, parseChannelData, parseUserData } from './presence.js';
import { encodeSubscriptionSucceeded } from './server-frame.js';

describe('parseChannelData', () => {
  it('reads a string user_id and its user_info', () => {
    expect(parseChannelData('{"user_id":"7","user_info":{"name":"Ann"}}')).toEqual({
      ok: true,
      value: { userId: '7', userInfo: { name: 'Ann' } },
    });
  });

  it.each([
    ['an integer', '{"user_id":42}', '42'],
    ['zero', '{"user_id":0}', '0'],
    ['a large integer', '{"user_id":9007199254740991}', '9007199254740991'],
  ])('turns a numeric user_id that is %s into a string', (_name, channelData, userId) => {
    expect(parseChannelData(channelData)).toMatchObject({ ok: true, value: { userId } });
  });

  it('leaves user_info undefined when there is none', () => {
    expect(parseChannelData('{"user_id":"7"}')).toEqual({
      ok: true,
      value: { userId: '7', userInfo: undefined },
    });
  });

  it.each([
    ['not JSON', 'user 7', 'not_json'],
    ['an empty string', '', 'not_json'],
    ['a JSON array', '[{"user_id":"7"}]', 'not_json'],
    ['a JSON string', '"7"', 'not_json'],
    ['JSON null', 'null', 'not_json'],
    ['an object without user_id', '{"user_info":{}}', 'missing_user_id'],
    ['an empty user_id', '{"user_id":""}', 'missing_user_id'],
    ['a null user_id', '{"user_id":null}', 'missing_user_id'],
    ['a boolean user_id', '{"user_id":true}', 'missing_user_id'],
    ['an object user_id', '{"user_id":{"id":"7"}}', 'missing_user_id'],
    ['an array user_id', '{"user_id":["7"]}', 'missing_user_id'],
    ['an id under the sign-in key instead of user_id', '{"id":"7"}', 'missing_user_id'],
  ])('refuses %s', (_name, channelData, reason) => {
    expect(parseChannelData(channelData)).toEqual({
      ok: false,
      error: { reason, message: expect.any(String) },
    });
  });

  it('accepts a user_id of 128 characters and refuses one of 129', () => {
    expect(parseChannelData(JSON.stringify({ user_id: 'u'.repeat(128) })).ok).toBe(true);
    expect(parseChannelData(JSON.stringify({ user_id: 'u'.repeat(129) }))).toEqual({
      ok: false,
      error: { reason: 'user_id_too_long', message: expect.any(String) },
    });
  });

  it('applies a configured user_id length', () => {
    const channelData = JSON.stringify({ user_id: 'u'.repeat(11) });
    expect(parseChannelData(channelData, { maxUserIdLength: 10 })).toMatchObject({
      ok: false,
      error: { reason: 'user_id_too_long' },
    });
    expect(parseChannelData(channelData, { maxUserIdLength: 11 }).ok).toBe(true);
  });

  // user_info is measured as its JSON encoding in UTF-8; a string of n ASCII characters takes n + 2 bytes.
  it('accepts user_info of exactly 2 KB and refuses one byte more', () => {
    expect(parseChannelData(JSON.stringify({ user_id: '1', user_info: 'a'.repeat(2046) })).ok).toBe(true);
    expect(parseChannelData(JSON.stringify({ user_id: '1', user_info: 'a'.repeat(2047) }))).toEqual({
      ok: false,
      error: { reason: 'user_info_too_large', message: expect.any(String) },
    });
  });

  it('measures user_info in bytes, not characters', () => {
    const info = 'é'.repeat(1024); // 1024 characters, 2048 bytes, 2050 once quoted
    expect(parseChannelData(JSON.stringify({ user_id: '1', user_info: info }))).toMatchObject({
      ok: false,
      error: { reason: 'user_info_too_large' },
    });
  });

  it('applies a configured user_info size', () => {
    const channelData = JSON.stringify({ user_id: '1', user_info: { name: 'Ann' } }); // user_info is 14 bytes
    expect(parseChannelData(channelData, { maxUserInfoBytes: 14 }).ok).toBe(true);
    expect(parseChannelData(channelData, { maxUserInfoBytes: 13 })).toMatchObject({
      ok: false,
      error: { reason: 'user_info_too_large' },
    });
  });
});

describe('parseUserData', () => {
  it('reads the id and keeps the whole user_data', () => {
    expect(parseUserData('{"id":"42","name":"Zoë","watchlist":["7"]}')).toEqual({
      ok: true,
      value: { id: '42', data: { id: '42', name: 'Zoë', watchlist: ['7'] }, watchlist: ['7'] },
    });
  });

  it('takes the watchlist without duplicates, and refuses one over 100 ids or not of strings', () => {
    expect(parseUserData('{"id":"1","watchlist":["a","b","a"]}')).toMatchObject({
      ok: true,
      value: { watchlist: ['a', 'b'] },
    });
    const many = JSON.stringify({ id: '1', watchlist: Array.from({ length: 101 }, (_, i) => `u${i}`) });
    expect(parseUserData(many)).toMatchObject({ ok: false, error: { reason: 'bad_watchlist' } });
    expect(parseUserData('{"id":"1","watchlist":[7]}')).toMatchObject({
      ok: false,
      error: {
        reason: 'bad_watchlist',
        message: 'user_data.watchlist must be an array of user id strings',
      },
    });
  });

  it.each([
    ['not JSON', '{id:42}', 'not_json'],
    ['an empty string', '', 'not_json'],
    ['a JSON array', '[{"id":"1"}]', 'not_json'],
    ['JSON null', 'null', 'not_json'],
    ['an object without id', '{"name":"Ann"}', 'missing_id'],
    ['an empty id', '{"id":""}', 'missing_id'],
    ['a numeric id, which pusher-js refuses', '{"id":42}', 'missing_id'],
    ['a null id', '{"id":null}', 'missing_id'],
    ['a presence-style user_id instead of id', '{"user_id":"42"}', 'missing_id'],
  ])('refuses %s', (_name, userData, reason) => {
    expect(parseUserData(userData)).toEqual({ ok: false, error: { reason, message: expect.any(String) } });
  });
});

describe('PresenceRoster', () => {
  const ann = { userId: 'ann', userInfo: { name: 'Ann' } };
  const bob = { userId: 'bob', userInfo: { name: 'Bob' } };

  it('announces member_added when a user joins with a first socket', () => {
    const roster = new PresenceRoster();
    expect(roster.join('1.1', ann)).toEqual({ type: 'member_added', member: ann });
  });

  it('counts a user with several sockets as one member, announced once', () => {
    const roster = new PresenceRoster();
    roster.join('1.1', ann);
    expect(roster.join('1.2', ann)).toEqual({ type: 'none' });
    expect(roster.join('1.3', ann)).toEqual({ type: 'none' });
    expect(roster.memberCount).toBe(1);
    expect(roster.socketCount).toBe(3);
    expect(roster.snapshot().count).toBe(1);
  });

  it('announces member_removed only when the last socket of a user leaves', () => {
    const roster = new PresenceRoster();
    roster.join('1.1', ann);
    roster.join('1.2', ann);
    expect(roster.leave('1.1')).toEqual({ type: 'none' });
    expect(roster.hasUser('ann')).toBe(true);
    expect(roster.leave('1.2')).toEqual({ type: 'member_removed', userId: 'ann' });
    expect(roster.hasUser('ann')).toBe(false);
    expect(roster.memberCount).toBe(0);
    expect(roster.socketCount).toBe(0);
  });

  it('announces a user again after they left and came back', () => {
    const roster = new PresenceRoster();
    roster.join('1.1', ann);
    roster.leave('1.1');
    expect(roster.join('1.2', ann)).toEqual({ type: 'member_added', member: ann });
  });

  it('keeps users apart', () => {
    const roster = new PresenceRoster();
    expect(roster.join('1.1', ann).type).toBe('member_added');
    expect(roster.join('2.1', bob).type).toBe('member_added');
    expect(roster.leave('1.1')).toEqual({ type: 'member_removed', userId: 'ann' });
    expect(roster.userIds()).toEqual(['bob']);
  });

  it('ignores a socket that joins twice', () => {
    const roster = new PresenceRoster();
    roster.join('1.1', ann);
    expect(roster.join('1.1', ann)).toEqual({ type: 'none' });
    expect(roster.join('1.1', bob)).toEqual({ type: 'none' });
    expect(roster.socketCount).toBe(1);
    expect(roster.leave('1.1')).toEqual({ type: 'member_removed', userId: 'ann' });
  });

  it('ignores a socket that leaves without having joined, or leaves twice', () => {
    const roster = new PresenceRoster();
    expect(roster.leave('9.9')).toEqual({ type: 'none' });
    roster.join('1.1', ann);
    roster.leave('1.1');
    expect(roster.leave('1.1')).toEqual({ type: 'none' });
  });

  it('tells which user a socket joined as', () => {
    const roster = new PresenceRoster();
    roster.join('1.1', ann);
    expect(roster.userOf('1.1')).toBe('ann');
    expect(roster.userOf('1.2')).toBeUndefined();
  });

  it('gives a snapshot of ids, hash and count in join order', () => {
    const roster = new PresenceRoster();
    roster.join('2.1', bob);
    roster.join('1.1', ann);
    roster.join('1.2', ann);
    expect(roster.snapshot()).toEqual({
      ids: ['bob', 'ann'],
      hash: { bob: { name: 'Bob' }, ann: { name: 'Ann' } },
      count: 2,
    });
  });

  it('shows the user info the first socket declared', () => {
    const roster = new PresenceRoster();
    roster.join('1.1', ann);
    roster.join('1.2', { userId: 'ann', userInfo: { name: 'Someone else' } });
    expect(roster.snapshot().hash).toEqual({ ann: { name: 'Ann' } });
  });

  it('gives an empty snapshot for an empty channel', () => {
    expect(new PresenceRoster().snapshot()).toEqual({ ids: [], hash: {}, count: 0 });
  });

  it('lists a member without user info in the hash once encoded', () => {
    const roster = new PresenceRoster();
    roster.join('1.1', { userId: '7', userInfo: undefined });
    const encoded = JSON.parse(JSON.stringify(roster.snapshot())) as { hash: Record<string, unknown> };
    expect(Object.keys(encoded.hash)).toEqual(['7']);
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'lists a user whose id is %j like any other',
    (userId) => {
      const roster = new PresenceRoster();
      expect(roster.join('1.1', { userId, userInfo: { name: 'x' } }).type).toBe('member_added');
      const frame = JSON.parse(encodeSubscriptionSucceeded('presence-room', roster.snapshot())) as {
        data: string;
      };
      const { presence } = JSON.parse(frame.data) as {
        presence: { ids: string[]; hash: Record<string, unknown>; count: number };
      };
      expect(presence.ids).toEqual([userId]);
      expect(presence.count).toBe(1);
      expect(Object.keys(presence.hash)).toEqual([userId]);
    },
  );

  it('holds one member per user id coerced from numeric channel_data', () => {
    const roster = new PresenceRoster();
    const fromNumber = parseChannelData('{"user_id":7}');
    const fromString = parseChannelData('{"user_id":"7"}');
    if (!fromNumber.ok || !fromString.ok) throw new Error('channel_data should parse');
    expect(roster.join('1.1', fromNumber.value).type).toBe('member_added');
    expect(roster.join('1.2', fromString.value).type).toBe('none');
    expect(roster.snapshot().ids).toEqual(['7']);
  });
});
