import type {
  Delivery,
  Notifiable,
  Notification,
  NotificationChannel,
  NotificationLogger,
} from '@herald/notifications';
import { silentLogger } from '@herald/protocol-core';
import { normalizeTeamChatAttachment, type TeamChatAttachmentInput } from './attachment.js';
import { parseTeamChatConfig, type TeamChatConfigInput } from './config.js';
import { CouldNotSendNotification, type TeamChatResponse } from './errors.js';
import { createWebhookClient } from './internal/webhook-client.js';
import { TeamChatMessage } from './message.js';
import type { TeamChatDestination, TeamChatPayload } from './payload.js';
import { validateTeamChatPayload } from './validate.js';

/** A webhook body as a plain object, where attachments may use colour names and `Date` timestamps. */
export type TeamChatPayloadInput = Omit<TeamChatPayload, 'attachments'> & {
  readonly attachments?: readonly TeamChatAttachmentInput[];
};

/** What `toTeamChat()` may return: a message, a body, plain text, or null to send nothing. */
export type TeamChatContent = TeamChatMessage | TeamChatPayloadInput | string | null | undefined;

/** A notification that can go through team-chat channels. */
export interface TeamChatNotification extends Notification {
  /** The message for this notifiable; `channel` is the channel name (`teamchat`, `teamchat-alerts`…). */
  toTeamChat?(notifiable: Notifiable, channel: string): TeamChatContent;
}

/** Options of {@link createTeamChatChannel}. */
export interface TeamChatChannelOptions {
  /** The name the channel is registered under: `teamchat` (default) or `teamchat-<instance>`. */
  readonly name?: string | undefined;
  /** The channel's config, or just the webhook URL. */
  readonly config: TeamChatConfigInput | string;
  readonly logger?: NotificationLogger | undefined;
}

/** Options of {@link TeamChatChannel.post}. */
export interface TeamChatPostOptions {
  /** Where to post instead of the hook's own room: `#channel`, `@user`, or several. */
  readonly channel?: TeamChatDestination | undefined;
}

/** A team-chat channel: a notification channel that can also post messages directly. */
export interface TeamChatChannel extends NotificationChannel {
  readonly name: string;
  /**
   * Validates and posts one message; answers Rocket.Chat's response.
   *
   * @throws {CouldNotSendNotification} when the message or route is invalid, the request fails, or
   *   Rocket.Chat answers a non-2xx status (unless `http_errors` is false, when the response is returned).
   */
  post(
    message: TeamChatMessage | TeamChatPayloadInput | string,
    options?: TeamChatPostOptions,
  ): Promise<TeamChatResponse>;
  /** Closes the channel's connections. */
  close(): Promise<void>;
}

const DESTINATION = /^[#@][^\s#@]+$/;

/** The notifiable method an instance's route may come from: `teamchat-alerts` → `routeNotificationForTeamchatAlerts`. */
export function teamChatRouteMethod(channel: string): string {
  const words = channel.split(/[-_]/).filter(Boolean);
  return `routeNotificationFor${words.map((word) => word[0]?.toUpperCase() + word.slice(1)).join('')}`;
}

function toPayload(content: TeamChatMessage | TeamChatPayloadInput | string): TeamChatPayload {
  if (content instanceof TeamChatMessage) return content.toArray();
  if (typeof content === 'string') return { text: content };
  const { attachments, ...rest } = content;
  return Array.isArray(attachments)
    ? { ...rest, attachments: attachments.map((attachment) => normalizeTeamChatAttachment(attachment)) }
    : (content as TeamChatPayload);
}

function checkDestination(name: string, value: unknown): TeamChatDestination | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const list = Array.isArray(value) ? [...new Set(value)] : [value];
  if (list.length === 0) return undefined;
  const bad = list.filter((item) => typeof item !== 'string' || !DESTINATION.test(item));
  if (bad.length > 0) {
    throw new CouldNotSendNotification(
      'invalid_route',
      `${name}: a route must be "#channel" or "@user" (or a list of them), got ${JSON.stringify(bad[0]) ?? String(bad[0])}`,
      { channel: name },
    );
  }
  return Array.isArray(value) ? (list as string[]) : (list[0] as string);
}

function resolveRoute(name: string, notifiable: Notifiable, notification: Notification): unknown {
  const routed = notifiable.routeNotificationFor?.(name, notification);
  if (routed !== undefined && routed !== null && routed !== '') return routed;
  const method: unknown = Reflect.get(notifiable, teamChatRouteMethod(name));
  return typeof method === 'function' ? method.call(notifiable, notification) : undefined;
}

/**
 * Creates a team-chat channel that posts to a Rocket.Chat incoming webhook, with every config option
 * wired into undici (timeouts, TLS verification, proxy, headers).
 *
 * @throws {TeamChatError} `invalid_config` when the name or config is unusable.
 * @example
 * const teamchat = createTeamChatChannel({ config: { webhook: env.TEAMCHAT_WEBHOOK, timeout: 5 } });
 * createNotifier({ channels: { teamchat } });
 */
export function createTeamChatChannel(options: TeamChatChannelOptions): TeamChatChannel {
  const name = options.name ?? 'teamchat';
  const config = parseTeamChatConfig(name, options.config);
  const logger = options.logger ?? silentLogger;
  const client = createWebhookClient(name, config, logger);

  const post: TeamChatChannel['post'] = async (content, postOptions = {}) => {
    const destination = checkDestination(name, postOptions.channel);
    const payload = toPayload(content);
    const body = destination === undefined ? payload : { ...payload, channel: destination };
    if (destination === undefined && body.channel !== undefined) checkDestination(name, body.channel);
    const validation = validateTeamChatPayload(body);
    if (!validation.ok) {
      throw new CouldNotSendNotification('invalid_message', `${name}: ${validation.error.message}`, {
        channel: name,
      });
    }
    return client.post(validation.value);
  };

  /** The message `toTeamChat()` gives for a delivery; undefined when it gives none (logged). */
  const contentOf = (delivery: Delivery) => {
    const notification = delivery.notification as TeamChatNotification;
    if (typeof notification.toTeamChat !== 'function') {
      throw new CouldNotSendNotification('missing_builder', `${name}: ${delivery.type} has no toTeamChat()`, {
        channel: name,
      });
    }
    const content = notification.toTeamChat(delivery.notifiable, name);
    if (content === null || content === undefined) {
      logger.debug('toTeamChat() gave nothing to send', { channel: name, id: delivery.id });
      return undefined;
    }
    return content;
  };
  const routeOf = (delivery: Delivery) =>
    checkDestination(name, resolveRoute(name, delivery.notifiable, delivery.notification));

  return {
    name,
    post,
    async send(delivery: Delivery) {
      const content = contentOf(delivery);
      if (content !== undefined) await post(content, { channel: routeOf(delivery) });
    },
    async sendDigest(deliveries) {
      const payloads = deliveries.flatMap((delivery) => {
        const content = contentOf(delivery);
        return content === undefined ? [] : [toPayload(content)];
      });
      const [first] = deliveries;
      const [head] = payloads;
      if (head === undefined || first === undefined) return;
      if (payloads.length === 1) {
        await post(head, { channel: routeOf(first) });
        return;
      }
      // One message for the window: a heading, each notification's text in turn, every attachment after them.
      const texts = payloads
        .map((payload) => payload.text)
        .filter((text) => text !== undefined && text !== '');
      const attachments = payloads.flatMap((payload) => payload.attachments ?? []);
      const { username, avatar, emoji } = head;
      await post(
        {
          ...(username === undefined ? {} : { username }),
          ...(avatar === undefined ? {} : { avatar }),
          ...(emoji === undefined ? {} : { emoji }),
          text: [`*${payloads.length} new notifications*`, ...texts].join('\n\n'),
          ...(attachments.length > 0 ? { attachments } : {}),
        },
        { channel: routeOf(first) },
      );
    },
    close: () => client.close(),
  };
}

/**
 * Creates the channels named in one config object: `teamchat` and any `teamchat-<instance>`, ready to
 * spread into `createNotifier({ channels })`.
 *
 * @throws {TeamChatError} `invalid_config` when a name or config is unusable.
 * @example
 * const teamChat = createTeamChatChannels({
 *   teamchat: process.env.TEAMCHAT_WEBHOOK,
 *   'teamchat-alerts': { webhook: process.env.TEAMCHAT_ALERTS_WEBHOOK, timeout: 3 },
 * });
 * createNotifier({ channels: { database, ...teamChat } });
 */
export function createTeamChatChannels(
  configs: Readonly<Record<string, TeamChatConfigInput | string>>,
  options: { readonly logger?: NotificationLogger | undefined } = {},
): Record<string, TeamChatChannel> {
  const channels: Record<string, TeamChatChannel> = {};
  for (const [name, config] of Object.entries(configs)) {
    channels[name] = createTeamChatChannel({ name, config, logger: options.logger });
  }
  return channels;
}
