// The channels one socket is subscribed to. Most sockets hold one channel, so that one is kept as the name itself and a
// Set is made only for a second: an empty-or-small Set costs about 180 bytes of heap per socket, a third of what an
// idle subscribed socket holds on the uws transport.

/** No channel, one channel's name, or a Set of names (once there were two). */
export type SocketChannels = string | Set<string> | undefined;

export function hasChannel(channels: SocketChannels, channel: string): boolean {
  return channels === channel || (typeof channels === 'object' && channels.has(channel));
}

/** The channels with `channel` added (the same Set, grown, once there is one). */
export function withChannel(channels: SocketChannels, channel: string): SocketChannels {
  if (channels === undefined || channels === channel) return channel;
  if (typeof channels === 'string') return new Set([channels, channel]);
  channels.add(channel);
  return channels;
}

/** The channels without `channel`. */
export function withoutChannel(channels: SocketChannels, channel: string): SocketChannels {
  if (channels === channel) return undefined;
  if (typeof channels === 'object') channels.delete(channel);
  return channels;
}

/** A copy of the names, safe to iterate while channels are left. */
export function channelList(channels: SocketChannels): string[] {
  if (channels === undefined) return [];
  return typeof channels === 'string' ? [channels] : [...channels];
}
