export {
  normalizeTeamChatAttachment,
  resolveTeamChatColor,
  TEAMCHAT_COLORS,
  TeamChatAttachment,
  type TeamChatAttachmentInput,
  type TeamChatColor,
  teamChatTimestamp,
} from './attachment.js';
export {
  createTeamChatChannel,
  createTeamChatChannels,
  type TeamChatChannel,
  type TeamChatChannelOptions,
  type TeamChatContent,
  type TeamChatNotification,
  type TeamChatPayloadInput,
  type TeamChatPostOptions,
  teamChatRouteMethod,
} from './channel.js';
export {
  isTeamChatChannelName,
  parseTeamChatConfig,
  type TeamChatConfig,
  type TeamChatConfigInput,
  teamChatConfigSchema,
} from './config.js';
export {
  CouldNotSendNotification,
  isCouldNotSendNotification,
  isTeamChatError,
  TeamChatError,
  type TeamChatErrorCode,
  type TeamChatResponse,
} from './errors.js';
export { TeamChatMessage } from './message.js';
export type {
  TeamChatAttachmentPayload,
  TeamChatDestination,
  TeamChatField,
  TeamChatPayload,
} from './payload.js';
export {
  type TeamChatValidation,
  type TeamChatValidationError,
  validateTeamChatPayload,
} from './validate.js';
