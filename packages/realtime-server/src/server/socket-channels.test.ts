import { describe, expect, it } from 'vitest';
import {
  channelList,
  hasChannel,
  type SocketChannels,
  withChannel,
  withoutChannel,
} from './socket-channels.js';

describe("a socket's channels", () => {
  it('hold one name without a collection, and a Set from the second on', () => {
    let channels: SocketChannels;
    expect(hasChannel(channels, 'a')).toBe(false);
    channels = withChannel(channels, 'a');
    expect(channels).toBe('a');
    expect(withChannel(channels, 'a')).toBe('a');
    channels = withChannel(channels, 'b');
    expect(channels).toBeInstanceOf(Set);
    channels = withChannel(channels, 'c');
    expect(['a', 'b', 'c', 'd'].map((name) => hasChannel(channels, name))).toEqual([true, true, true, false]);
    expect(channelList(channels)).toEqual(['a', 'b', 'c']);
  });

  it('let channels go one by one, down to none', () => {
    let channels: SocketChannels = withChannel(withChannel('a', 'b'), 'c');
    channels = withoutChannel(channels, 'b');
    expect(channelList(channels)).toEqual(['a', 'c']);
    channels = withoutChannel(withoutChannel(channels, 'a'), 'c');
    expect(channelList(channels)).toEqual([]);
    expect(hasChannel(channels, 'c')).toBe(false);
    expect(withoutChannel('a', 'a')).toBeUndefined();
    expect(withoutChannel('a', 'z')).toBe('a');
    expect(channelList(undefined)).toEqual([]);
  });

  it('give a copy to iterate, so leaving while iterating skips nothing', () => {
    let channels: SocketChannels = withChannel(withChannel('a', 'b'), 'c');
    const left: string[] = [];
    for (const channel of channelList(channels)) {
      channels = withoutChannel(channels, channel);
      left.push(channel);
    }
    expect(left).toEqual(['a', 'b', 'c']);
  });
});
