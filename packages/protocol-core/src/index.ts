export {
  type ChannelKind,
  type ChannelNameError,
  type ChannelTraits,
  channelKind,
  describeChannel,
  SERVER_TO_USER_PREFIX,
  serverToUserChannel,
  validateChannelName,
} from './channel-name.js';
export { type ClientFrame, type FrameError, parseClientFrame } from './client-frame.js';
export type {
  Awaitable,
  ClusterAdapter,
  ClusterCachedEvent,
  ClusterChannelChange,
  ClusterChannelCounts,
  ClusterDelivery,
  ClusterListener,
  ClusterMessage,
  ClusterPresenceJoin,
  ClusterPresenceLeave,
  LocalClusterState,
  LocalPresence,
} from './cluster.js';
export { ClusterState, type DroppedShare, type OccupancyChange } from './cluster-state.js';
export {
  closesConnection,
  ErrorCode,
  type ErrorCodeValue,
  type ReconnectAction,
  reconnectAction,
} from './error-codes.js';
export { isProtocolCoreError, ProtocolCoreError, type ProtocolCoreErrorCode } from './errors.js';
export { CLIENT_EVENT_PREFIX, isClientEventName, ProtocolEvent } from './events.js';
export { DefaultLimits } from './limits.js';
export { type LogFields, type Logger, silentLogger } from './logger.js';
export { isOriginAllowed } from './origin.js';
export {
  type ChannelDataError,
  MAX_WATCHLIST_SIZE,
  type MemberLimits,
  type PresenceChange,
  type PresenceMember,
  PresenceRoster,
  parseChannelData,
  parseUserData,
  type SignedInUser,
  type UserDataError,
} from './presence.js';
export {
  type HistoryPosition,
  RecoveryEvent,
  type RecoveryFailureReason,
  RecoveryField,
} from './recovery.js';
export { fail, ok, type Result } from './result.js';
export {
  createSecretCipher,
  isSealed,
  type OpenProblem,
  openWithoutKey,
  parseStoreKey,
  type SecretCipher,
  sealedKeyId,
} from './secret-cipher.js';
export {
  type ChannelEvent,
  encodeCacheMiss,
  encodeChannelEvent,
  encodeConnectionEstablished,
  encodeError,
  encodeMemberAdded,
  encodeMemberRemoved,
  encodePing,
  encodePong,
  encodeRecoveryFailed,
  encodeSigninSuccess,
  encodeSubscriptionCount,
  encodeSubscriptionError,
  encodeSubscriptionSucceeded,
  encodeWatchlistEvents,
  type PresenceSnapshot,
  type RecoveryFailure,
  type SubscriptionErrorData,
  type WatchlistEvent,
} from './server-frame.js';
export {
  type AppCredentials,
  acceptedSecrets,
  type ChannelAuthInput,
  encryptedChannelSharedSecret,
  hmacHex,
  md5Hex,
  type PreviousSecret,
  type QueryParams,
  type RawRequestToVerify,
  type RequestAuthError,
  type RequestToSign,
  type RequestToVerify,
  requestStringToSign,
  safeEqual,
  signChannelAuth,
  signRequest,
  signUserAuth,
  signWebhook,
  verifyChannelAuth,
  verifyRawRequest,
  verifyRequest,
  verifyUserAuth,
  verifyWebhook,
} from './signature.js';
export { createSocketIdGenerator, isSocketId, type SocketIdGenerator } from './socket-id.js';
