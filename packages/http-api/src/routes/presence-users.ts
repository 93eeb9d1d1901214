import { describeChannel } from '@herald/protocol-core';
import type { Handler } from 'hono';
import type { HttpApiEnv } from '../api-env.js';
import type { RealtimeBackend } from '../backend.js';
import { HttpApiError } from '../errors.js';
import { checkedChannelName } from '../internal/request-input.js';
import { sendJson } from '../internal/respond.js';

/** Creates `GET /apps/{id}/channels/{name}/users`: the user ids of a presence channel's members. */
export function listPresenceUsers(
  backend: RealtimeBackend,
): Handler<HttpApiEnv, '/apps/:appId/channels/:channelName/users'> {
  return async (c) => {
    const app = c.get('app');
    const name = checkedChannelName(c.req.param('channelName'), app);
    if (!describeChannel(name).presence) {
      throw new HttpApiError('invalid_body', 'channel_name: users are only listed for presence channels', {
        field: 'channel_name',
      });
    }
    const users = await backend.presenceUsers(app.id, name);
    return sendJson(c, { users: users.map((id) => ({ id })) });
  };
}
