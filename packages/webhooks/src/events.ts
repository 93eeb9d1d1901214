// The events of Pusher's webhooks (https://pusher.com/docs/channels/server_api/webhooks/): names and payload
// fields exactly as the hosted service sends them, so receivers written for Pusher work unchanged.

/** Every webhook event type, as named in the config's `event_types` and in each event's `name`. */
export const WEBHOOK_EVENT_TYPES = [
  'channel_occupied',
  'channel_vacated',
  'member_added',
  'member_removed',
  'client_event',
  'cache_miss',
  'subscription_count',
] as const;

/** One webhook event type. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** A channel got its first subscriber (in the whole cluster when scaling). */
export interface ChannelOccupiedEvent {
  readonly name: 'channel_occupied';
  readonly channel: string;
}

/** A channel lost its last subscriber (in the whole cluster when scaling). */
export interface ChannelVacatedEvent {
  readonly name: 'channel_vacated';
  readonly channel: string;
}

/** A user's first socket joined a presence channel. */
export interface MemberAddedEvent {
  readonly name: 'member_added';
  readonly channel: string;
  readonly user_id: string;
}

/** A user's last socket left a presence channel. */
export interface MemberRemovedEvent {
  readonly name: 'member_removed';
  readonly channel: string;
  readonly user_id: string;
}

/** A client event (`client-*`) sent on a private or presence channel. */
export interface ClientEventEvent {
  readonly name: 'client_event';
  readonly channel: string;
  /** The client event's name, `client-` prefix included. */
  readonly event: string;
  /** The event's data as a JSON string, the way Pusher sends it. */
  readonly data: string;
  readonly socket_id: string;
  /** Only on presence channels: the sender's user id. */
  readonly user_id?: string;
}

/** A subscription to a cache channel found nothing cached. */
export interface CacheMissEvent {
  readonly name: 'cache_miss';
  readonly channel: string;
}

/** A channel's subscription count changed. */
export interface SubscriptionCountEvent {
  readonly name: 'subscription_count';
  readonly channel: string;
  readonly subscription_count: number;
}

/** Any webhook event, discriminated by `name`. */
export type WebhookEvent =
  | ChannelOccupiedEvent
  | ChannelVacatedEvent
  | MemberAddedEvent
  | MemberRemovedEvent
  | ClientEventEvent
  | CacheMissEvent
  | SubscriptionCountEvent;

/** What {@link webhookEvent}.clientEvent takes. */
export interface ClientEventInput {
  readonly channel: string;
  readonly event: string;
  /** A string is sent as is; any other value is JSON-encoded, as Pusher sends client event data. */
  readonly data: unknown;
  readonly socketId: string;
  /** The sender's user id; give it on presence channels only. */
  readonly userId?: string | undefined;
}

/**
 * Builds webhook events with Pusher's field names: the server calls these and hands the result to
 * `dispatcher.emit(appId, event)`.
 * @example
 * ```ts
 * dispatcher.emit('app-1', webhookEvent.memberAdded('presence-room', 'user-7'));
 * ```
 */
export const webhookEvent = {
  channelOccupied: (channel: string): ChannelOccupiedEvent => ({ name: 'channel_occupied', channel }),
  channelVacated: (channel: string): ChannelVacatedEvent => ({ name: 'channel_vacated', channel }),
  memberAdded: (channel: string, userId: string): MemberAddedEvent => ({
    name: 'member_added',
    channel,
    user_id: userId,
  }),
  memberRemoved: (channel: string, userId: string): MemberRemovedEvent => ({
    name: 'member_removed',
    channel,
    user_id: userId,
  }),
  clientEvent: (input: ClientEventInput): ClientEventEvent => ({
    name: 'client_event',
    channel: input.channel,
    event: input.event,
    data: typeof input.data === 'string' ? input.data : JSON.stringify(input.data),
    socket_id: input.socketId,
    ...(input.userId === undefined ? {} : { user_id: input.userId }),
  }),
  cacheMiss: (channel: string): CacheMissEvent => ({ name: 'cache_miss', channel }),
  subscriptionCount: (channel: string, count: number): SubscriptionCountEvent => ({
    name: 'subscription_count',
    channel,
    subscription_count: count,
  }),
} as const;
