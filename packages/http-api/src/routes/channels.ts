import { describeChannel } from '@herald/protocol-core';
import type { Handler } from 'hono';
import type { HttpApiEnv } from '../api-env.js';
import type { RealtimeBackend } from '../backend.js';
import { type ChannelCounts, countsOf, type InfoAttribute, parseInfo } from '../channel-info.js';
import { HttpApiError } from '../errors.js';
import { checkedChannelName } from '../internal/request-input.js';
import { refuse, sendJson } from '../internal/respond.js';

const CHANNELS_INFO: readonly InfoAttribute[] = ['user_count', 'subscription_count'];
const CHANNEL_INFO: readonly InfoAttribute[] = ['user_count', 'subscription_count', 'cache'];
const PRESENCE_PREFIX = 'presence-';

/** Creates `GET /apps/{id}/channels`: the occupied channels, filtered by prefix, with the counts `info` asks. */
export function listChannels(backend: RealtimeBackend): Handler<HttpApiEnv> {
  return async (c) => {
    const app = c.get('app');
    const prefixFilter = c.req.query('filter_by_prefix');
    const info = parseInfo(c.req.query('info'), CHANNELS_INFO);
    if (!info.ok) throw refuse(info.error);
    if (info.value.has('user_count') && !prefixFilter?.startsWith(PRESENCE_PREFIX)) {
      throw new HttpApiError('invalid_body', 'info: user_count needs filter_by_prefix=presence-', {
        field: 'info',
      });
    }
    const occupied = await backend.channels(app.id, { prefix: prefixFilter });
    const channels: Record<string, ChannelCounts> = {};
    for (const channel of occupied) channels[channel.name] = countsOf(channel.name, channel, info.value);
    return sendJson(c, { channels });
  };
}

/** Creates `GET /apps/{id}/channels/{name}`: whether the channel is occupied, its counts and its cached event. */
export function showChannel(
  backend: RealtimeBackend,
): Handler<HttpApiEnv, '/apps/:appId/channels/:channelName'> {
  return async (c) => {
    const app = c.get('app');
    const name = checkedChannelName(c.req.param('channelName'), app);
    const info = parseInfo(c.req.query('info'), CHANNEL_INFO);
    if (!info.ok) throw refuse(info.error);
    if (info.value.has('user_count') && !describeChannel(name).presence) {
      throw new HttpApiError('invalid_body', 'info: user_count is only available for presence channels', {
        field: 'info',
      });
    }
    const state = await backend.channel(app.id, name);
    const cache =
      info.value.has('cache') && state.cache ? { data: state.cache.data, ttl: state.cache.ttl } : undefined;
    return sendJson(c, {
      occupied: state.occupied,
      ...countsOf(name, state, info.value),
      ...(cache ? { cache } : {}),
    });
  };
}
