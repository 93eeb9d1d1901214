// What both ceilings (bare uWS in ceiling.mjs, bare ws in ceiling-ws.mjs) do the same way: the frames they write and
// the presence rosters they keep. Only the sockets differ between them.

/** One Pusher frame as text. */
export function frame(event, channel, data) {
  return JSON.stringify(channel === undefined ? { event, data } : { event, channel, data });
}

/** The frame a socket receives when it opens. */
export function connectionEstablished(socketId) {
  return frame(
    'pusher:connection_established',
    undefined,
    JSON.stringify({ socket_id: socketId, activity_timeout: 120 }),
  );
}

const PONG = '{"event":"pusher:pong","data":"{}"}';

/** The answer to subscribing to a channel that is not a presence channel. */
export function subscribed(channel) {
  return frame('pusher_internal:subscription_succeeded', channel, '{}');
}

/**
 * Reads one client frame and hands it to the ceiling's own socket operations (`ops` is one object per server, so
 * nothing is allocated per frame beyond the parse): `subscribe(ws, channel, channelData)`,
 * `unsubscribe(ws, channel)`, `send(ws, text)`, `clientEvent(ws, channel, text)` (to the channel, sender excluded).
 */
export function dispatchFrame(ws, text, ops) {
  const parsed = JSON.parse(text);
  const { event, data } = parsed;
  if (event === 'pusher:subscribe') ops.subscribe(ws, data.channel, data.channel_data);
  else if (event === 'pusher:unsubscribe') ops.unsubscribe(ws, data.channel);
  else if (event === 'pusher:ping') ops.send(ws, PONG);
  else if (event.startsWith('client-'))
    ops.clientEvent(ws, parsed.channel, frame(event, parsed.channel, data));
}

/** channel -> Map(user_id -> { info, sockets }): a member counts once however many sockets it has. */
export function createPresence() {
  const channels = new Map();
  return {
    /**
     * A socket joins as the member in `channelData`: the roster frame for it, and the member_added frame for the
     * others when the member is new.
     */
    join(channel, channelData) {
      const member = JSON.parse(channelData);
      const userId = String(member.user_id);
      let members = channels.get(channel);
      if (!members) {
        members = new Map();
        channels.set(channel, members);
      }
      const existing = members.get(userId);
      if (existing) existing.sockets++;
      else members.set(userId, { info: member.user_info, sockets: 1 });
      const hash = {};
      for (const [id, value] of members) hash[id] = value.info ?? null;
      const roster = { presence: { count: members.size, ids: [...members.keys()], hash } };
      return {
        userId,
        added: existing ? undefined : frame('pusher_internal:member_added', channel, JSON.stringify(member)),
        succeeded: frame('pusher_internal:subscription_succeeded', channel, JSON.stringify(roster)),
      };
    },
    /** A socket of the member leaves: the member_removed frame when it was the member's last. */
    leave(channel, userId) {
      const members = channels.get(channel);
      const entry = members?.get(userId);
      if (!entry || --entry.sockets > 0) return undefined;
      members.delete(userId);
      return frame('pusher_internal:member_removed', channel, JSON.stringify({ user_id: userId }));
    },
  };
}
