import type { Handler } from 'hono';
import { type ApiApp, eventLimitsOf } from '../api-app.js';
import type { HttpApiEnv } from '../api-env.js';
import type { RealtimeBackend } from '../backend.js';
import { type ChannelCounts, countsOf, type InfoAttribute } from '../channel-info.js';
import { parseJsonBody } from '../internal/request-input.js';
import { refuse, sendJson } from '../internal/respond.js';
import type { Logger } from '../logger.js';
import type { TakeRateLimit } from '../middleware/rate-limit.js';
import { parseBatchBody, parseTriggerBody, type TriggeredEvent } from '../trigger-body.js';

/** What the trigger routes need. */
export interface EventRouteOptions {
  readonly backend: RealtimeBackend;
  readonly logger: Logger;
  readonly takeRateLimit: TakeRateLimit;
}

async function publish(options: EventRouteOptions, app: ApiApp, event: TriggeredEvent): Promise<void> {
  await options.backend.publish(app.id, {
    channels: event.channels,
    event: event.name,
    data: event.data,
    excludeSocketId: event.socketId,
  });
  options.logger.debug('event published', {
    appId: app.id,
    event: event.name,
    channels: event.channels.length,
  });
}

async function countsFor(
  backend: RealtimeBackend,
  app: ApiApp,
  channel: string,
  info: ReadonlySet<InfoAttribute>,
): Promise<ChannelCounts> {
  return countsOf(channel, await backend.channel(app.id, channel), info);
}

/** Creates `POST /apps/{id}/events`: publishes one event, answering the channels' counts when `info` asks. */
export function triggerEvent(options: EventRouteOptions): Handler<HttpApiEnv> {
  return async (c) => {
    const app = c.get('app');
    const parsed = parseTriggerBody(parseJsonBody(c.get('body')), eventLimitsOf(app));
    if (!parsed.ok) throw refuse(parsed.error);
    const event = parsed.value;
    await options.takeRateLimit(c, 'backend_events', 1);
    await publish(options, app, event);
    if (event.info.size === 0) return sendJson(c, {});
    const channels: Record<string, ChannelCounts> = {};
    for (const channel of event.channels) {
      channels[channel] = await countsFor(options.backend, app, channel, event.info);
    }
    return sendJson(c, { channels });
  };
}

/** Creates `POST /apps/{id}/batch_events`: publishes the batch in order, answering counts where `info` asks. */
export function triggerBatch(options: EventRouteOptions): Handler<HttpApiEnv> {
  return async (c) => {
    const app = c.get('app');
    const parsed = parseBatchBody(parseJsonBody(c.get('body')), eventLimitsOf(app));
    if (!parsed.ok) throw refuse(parsed.error);
    const events = parsed.value;
    await options.takeRateLimit(c, 'backend_events', events.length);
    // In order, so subscribers of one channel see the batch's events in the order they were given.
    for (const event of events) await publish(options, app, event);
    if (events.every((event) => event.info.size === 0)) return sendJson(c, {});
    const batch: ChannelCounts[] = [];
    for (const event of events) {
      const [channel] = event.channels;
      batch.push(
        event.info.size === 0 || channel === undefined
          ? {}
          : await countsFor(options.backend, app, channel, event.info),
      );
    }
    return sendJson(c, { batch });
  };
}
