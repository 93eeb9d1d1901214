import type { WebhookEvent } from './events.js';

/**
 * What an event says about the present, for the kinds of events a later change can overtake: a channel's
 * occupancy, a user's membership of a presence channel, a channel's subscription count. `id` is the same for
 * every event about the same subject (so `channel_vacated` and `channel_occupied` of one channel share it).
 */
export type WebhookSubject =
  | {
      readonly kind: 'occupancy';
      readonly id: string;
      readonly channel: string;
      /** What the event claims: occupied (`channel_occupied`) or not (`channel_vacated`). */
      readonly occupied: boolean;
    }
  | {
      readonly kind: 'membership';
      readonly id: string;
      readonly channel: string;
      readonly userId: string;
      /** What the event claims: a member (`member_added`) or not (`member_removed`). */
      readonly member: boolean;
    }
  | {
      readonly kind: 'subscription_count';
      readonly id: string;
      readonly channel: string;
      readonly count: number;
    };

/**
 * The subject an event makes a claim about, or `undefined` for events that record a moment rather than a state
 * (client events, cache misses), which nothing can overtake. The one list of the kinds of events that can go
 * stale.
 * @example
 * ```ts
 * subjectOf(webhookEvent.channelVacated('orders')); // { kind: 'occupancy', channel: 'orders', occupied: false, … }
 * ```
 */
export function subjectOf(event: WebhookEvent): WebhookSubject | undefined {
  // A channel name cannot hold NUL, so ids of different subjects never collide.
  switch (event.name) {
    case 'channel_occupied':
    case 'channel_vacated':
      return {
        kind: 'occupancy',
        id: `c\u0000${event.channel}`,
        channel: event.channel,
        occupied: event.name === 'channel_occupied',
      };
    case 'member_added':
    case 'member_removed':
      return {
        kind: 'membership',
        id: `m\u0000${event.channel}\u0000${event.user_id}`,
        channel: event.channel,
        userId: event.user_id,
        member: event.name === 'member_added',
      };
    case 'subscription_count':
      return {
        kind: 'subscription_count',
        id: `s\u0000${event.channel}`,
        channel: event.channel,
        count: event.subscription_count,
      };
    default:
      return undefined;
  }
}
