export {
  defaultPushDigestTemplate,
  defaultPushTemplate,
  type PushDigestTemplate,
  type PushItem,
  type PushMessage,
  type PushTemplate,
} from './push-message.js';
export {
  createWebPushChannel,
  generateVapidKeys,
  type WebPushChannel,
  type WebPushChannelOptions,
} from './web-push-channel.js';
