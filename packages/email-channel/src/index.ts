export { createEmailChannel, type EmailChannel, type EmailChannelOptions } from './email-channel.js';
export {
  type DigestTemplate,
  defaultDigestTemplate,
  defaultEmailTemplate,
  type EmailItem,
  type EmailTemplate,
  type RenderedEmail,
} from './email-template.js';
