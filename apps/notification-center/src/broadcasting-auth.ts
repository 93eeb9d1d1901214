import type { NotificationUser } from '@herald/notifications';
import { isSocketId, signChannelAuth } from '@herald/protocol-core';
import type { Context } from 'hono';
import type { RealtimeTarget } from './config.js';

/** The channels a user may subscribe to: `private-`/`presence-` followed by `{type}.{id}`, or a sub-channel of it. */
export function ownsChannel(user: NotificationUser, channel: string): boolean {
  const match = /^(?:private-|presence-)(.+)$/.exec(channel);
  if (!match || channel.startsWith('private-encrypted-')) return false;
  const own = `${user.type ?? 'User'}.${user.id}`;
  const rest = match[1] as string;
  return rest === own || rest.startsWith(`${own}.`);
}

/**
 * Answers a pusher-js channel authorisation (`socket_id`, `channel_name`, form or JSON) for the signed-in
 * user's own private and presence channels.
 */
export async function answerChannelAuth(c: Context, realtime: RealtimeTarget, user: NotificationUser) {
  const type = c.req.header('content-type') ?? '';
  const body: Record<string, unknown> = type.includes('application/json')
    ? ((await c.req.json().catch(() => ({}))) as Record<string, unknown>)
    : await c.req.parseBody();
  const socketId = typeof body.socket_id === 'string' ? body.socket_id : '';
  const channel = typeof body.channel_name === 'string' ? body.channel_name : '';
  if (!isSocketId(socketId) || channel === '') {
    return c.json(
      { error: { code: 'validation_failed', message: 'socket_id and channel_name are required' } },
      422,
    );
  }
  if (!ownsChannel(user, channel)) {
    return c.json({ error: { code: 'forbidden', message: `not allowed to subscribe to ${channel}` } }, 403);
  }
  const credentials = { key: realtime.key, secret: realtime.secret };
  if (channel.startsWith('presence-')) {
    const channelData = JSON.stringify({
      user_id: String(user.id),
      user_info: { name: user.name ?? String(user.id) },
    });
    return c.json({
      auth: signChannelAuth(credentials, { socketId, channel, channelData }),
      channel_data: channelData,
    });
  }
  return c.json({ auth: signChannelAuth(credentials, { socketId, channel }) });
}
