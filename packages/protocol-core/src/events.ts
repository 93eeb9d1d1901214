/**
 * Event names of the Pusher Channels protocol v7: the `pusher:` and `pusher_internal:` events the server and
 * clients exchange. App events are any other name; client events start with `client-`.
 */
export const ProtocolEvent = {
  ConnectionEstablished: 'pusher:connection_established',
  Error: 'pusher:error',
  Ping: 'pusher:ping',
  Pong: 'pusher:pong',
  Subscribe: 'pusher:subscribe',
  Unsubscribe: 'pusher:unsubscribe',
  Signin: 'pusher:signin',
  SigninSuccess: 'pusher:signin_success',
  SubscriptionError: 'pusher:subscription_error',
  CacheMiss: 'pusher:cache_miss',
  SubscriptionSucceeded: 'pusher_internal:subscription_succeeded',
  MemberAdded: 'pusher_internal:member_added',
  MemberRemoved: 'pusher_internal:member_removed',
  SubscriptionCount: 'pusher_internal:subscription_count',
  WatchlistEvents: 'pusher_internal:watchlist_events',
} as const;

/** Prefix every client event name must carry. */
export const CLIENT_EVENT_PREFIX = 'client-';

/** Tells whether an event name is a client event (`client-*`). */
export function isClientEventName(name: string): boolean {
  return name.startsWith(CLIENT_EVENT_PREFIX) && name.length > CLIENT_EVENT_PREFIX.length;
}
