import { DefaultLimits, type PreviousSecret } from '@herald/protocol-core';
import type { Awaitable } from './backend.js';

/** An application as the HTTP API needs it; the app layer maps its configuration into this. */
export interface ApiApp {
  readonly id: string;
  readonly key: string;
  readonly secret: string;
  /** Secrets replaced by a rotation, accepted (bearer and signature) until their `until` (epoch ms). */
  readonly previousSecrets?: readonly PreviousSecret[] | undefined;
  /** A disabled app answers 403 to every authenticated request. */
  readonly enabled: boolean;
  /** Origins allowed by CORS: exact origins, host patterns such as `*.example.com`, or `*`. */
  readonly allowedOrigins: readonly string[];
  /** Largest `data` of one event, in kilobytes (10 by default). */
  readonly maxEventPayloadInKb?: number | undefined;
  /** Most channels one trigger may name (100 by default). */
  readonly maxEventChannelsAtOnce?: number | undefined;
  /** Most events in one batch (10 by default). */
  readonly maxEventBatchSize?: number | undefined;
  /** Longest event name (200 by default). */
  readonly maxEventNameLength?: number | undefined;
  /** Longest channel name (164 by default). */
  readonly maxChannelNameLength?: number | undefined;
  /** Events per second this app may publish through the API, overriding the rate limits' default. */
  readonly maxBackendEventsPerSecond?: number | undefined;
  /** Read requests per second this app may make, overriding the rate limits' default. */
  readonly maxReadRequestsPerSecond?: number | undefined;
}

/** Finds an app by its id; `undefined` when there is none. */
export type AppLookup = (id: string) => Awaitable<ApiApp | undefined>;

/** The limits an app's requests are checked against, with Pusher's defaults filled in. */
export interface EventLimits {
  readonly maxPayloadBytes: number;
  readonly maxChannelsAtOnce: number;
  readonly maxBatchSize: number;
  readonly maxEventNameLength: number;
  readonly maxChannelNameLength: number;
}

/** Fills in Pusher's default limits where an app leaves them unset. */
export function eventLimitsOf(app: ApiApp): EventLimits {
  return {
    maxPayloadBytes: (app.maxEventPayloadInKb ?? DefaultLimits.maxEventPayloadInKb) * 1024,
    maxChannelsAtOnce: app.maxEventChannelsAtOnce ?? DefaultLimits.maxEventChannelsAtOnce,
    maxBatchSize: app.maxEventBatchSize ?? DefaultLimits.maxEventBatchSize,
    maxEventNameLength: app.maxEventNameLength ?? DefaultLimits.maxEventNameLength,
    maxChannelNameLength: app.maxChannelNameLength ?? DefaultLimits.maxChannelNameLength,
  };
}

/** Turns a list of apps into a lookup by id. */
export function appLookupOf(apps: readonly ApiApp[] | AppLookup): AppLookup {
  if (typeof apps === 'function') return apps;
  const byId = new Map(apps.map((app) => [app.id, app]));
  return (id) => byId.get(id);
}
