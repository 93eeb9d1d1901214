/**
 * Pusher's documented default limits, used when an application does not set its own.
 * Sizes in kilobytes are multiplied by 1024 when compared with byte lengths.
 */
export const DefaultLimits = {
  maxEventPayloadInKb: 10,
  maxEventChannelsAtOnce: 100,
  maxEventBatchSize: 10,
  maxEventNameLength: 200,
  maxChannelNameLength: 164,
  maxPresenceMembersPerChannel: 100,
  maxPresenceMemberSizeInKb: 2,
  maxPresenceUserIdLength: 128,
  /** Seconds within which a signed REST request's `auth_timestamp` must fall. */
  requestTimestampGraceSeconds: 600,
} as const;
