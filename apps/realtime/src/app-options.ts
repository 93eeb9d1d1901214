import type { ApiApp } from '@herald/http-api';
import type { RealtimeApp } from '@herald/realtime-server';
import type { ServedApp } from './app-source.js';
import type { RealtimeConfig } from './config-schema.js';

/**
 * Maps an application's config keys onto the real-time server's options. Socket limits come from the app's own
 * keys, else from `rate_limiter` (client events when it is enabled, frames when `rate_limiter.connection` is).
 */
export function toRealtimeApp(app: ServedApp, limits: RealtimeConfig['rate_limiter']): RealtimeApp {
  const clientEvents = limits.enabled
    ? (app.max_frontend_events_per_second ?? limits.default_limits.max_frontend_events_per_second)
    : undefined;
  const frames =
    app.max_connection_messages_per_second ??
    (limits.connection.enabled ? limits.connection.max_messages_per_second : undefined);
  return {
    ...(clientEvents !== undefined ? { maxClientEventsPerSecond: clientEvents } : {}),
    ...(frames !== undefined ? { maxMessagesPerSecond: frames } : {}),
    terminateOnMessageLimit: app.connection_rate_limit_terminate ?? limits.connection.terminate_on_limit,
    id: app.id,
    key: app.key,
    secret: app.secret,
    ...(app.previous_secrets ? { previousSecrets: app.previous_secrets } : {}),
    name: app.name ?? app.id,
    enabled: app.enabled,
    maxConnections: app.max_connections,
    enableClientMessages: app.enable_client_messages,
    ...(app.accept_client_events_from ? { acceptClientEventsFrom: app.accept_client_events_from } : {}),
    allowedOrigins: app.allowed_origins,
    activityTimeout: app.activity_timeout,
    pingInterval: app.ping_interval,
    maxMessageSize: app.max_message_size,
    enableSubscriptionCount: app.enable_subscription_count,
    subscriptionCountIntervalMs: app.subscription_count_interval_ms,
    maxPresenceMembersPerChannel: app.max_presence_members_per_channel,
    maxPresenceMemberSizeInKb: app.max_presence_member_size_in_kb,
    maxEventPayloadInKb: app.max_event_payload_in_kb,
    maxEventNameLength: app.max_event_name_length,
    maxChannelNameLength: app.max_channel_name_length,
    ...(app.history
      ? {
          history: {
            enabled: app.history.enabled,
            maxEventsPerChannel: app.history.max_events_per_channel,
            maxAgeSeconds: app.history.max_age_seconds,
          },
        }
      : {}),
    ...(app.authorized_connections
      ? {
          authorizedConnections: {
            enabled: app.authorized_connections.enabled,
            timeoutSeconds: app.authorized_connections.timeout_seconds,
          },
        }
      : {}),
  };
}

/** Maps an application's config keys onto the HTTP API's view of it. */
export function toApiApp(app: ServedApp): ApiApp {
  return {
    id: app.id,
    key: app.key,
    secret: app.secret,
    ...(app.previous_secrets ? { previousSecrets: app.previous_secrets } : {}),
    enabled: app.enabled,
    allowedOrigins: app.allowed_origins,
    maxEventPayloadInKb: app.max_event_payload_in_kb,
    maxEventChannelsAtOnce: app.max_event_channels_at_once,
    maxEventBatchSize: app.max_event_batch_size,
    maxEventNameLength: app.max_event_name_length,
    maxChannelNameLength: app.max_channel_name_length,
    maxBackendEventsPerSecond: app.max_backend_events_per_second,
    maxReadRequestsPerSecond: app.max_read_requests_per_second,
  };
}
