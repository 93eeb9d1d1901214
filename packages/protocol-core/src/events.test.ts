import { describe, expect, it } from 'vitest';
import { CLIENT_EVENT_PREFIX, isClientEventName, ProtocolEvent } from './events.js';

describe('ProtocolEvent', () => {
  it.each([
    ['ConnectionEstablished', 'pusher:connection_established'],
    ['Error', 'pusher:error'],
    ['Ping', 'pusher:ping'],
    ['Pong', 'pusher:pong'],
    ['Subscribe', 'pusher:subscribe'],
    ['Unsubscribe', 'pusher:unsubscribe'],
    ['Signin', 'pusher:signin'],
    ['SigninSuccess', 'pusher:signin_success'],
    ['SubscriptionError', 'pusher:subscription_error'],
    ['CacheMiss', 'pusher:cache_miss'],
    ['SubscriptionSucceeded', 'pusher_internal:subscription_succeeded'],
    ['MemberAdded', 'pusher_internal:member_added'],
    ['MemberRemoved', 'pusher_internal:member_removed'],
    ['SubscriptionCount', 'pusher_internal:subscription_count'],
  ] as const)('names %s %s on the wire', (name, wire) => {
    expect(ProtocolEvent[name]).toBe(wire);
  });
});

describe('isClientEventName', () => {
  it.each(['client-typing', 'client-x', 'client-message.sent', 'client-client-'])('accepts %j', (name) => {
    expect(isClientEventName(name)).toBe(true);
  });

  it.each([
    'client-',
    'client',
    'Client-typing',
    'CLIENT-typing',
    'my-client-typing',
    ' client-x',
    'pusher:ping',
    '',
  ])('refuses %j', (name) => {
    expect(isClientEventName(name)).toBe(false);
  });

  it('uses the client- prefix', () => {
    expect(CLIENT_EVENT_PREFIX).toBe('client-');
  });
});
