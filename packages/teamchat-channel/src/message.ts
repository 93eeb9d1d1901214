import {
  normalizeTeamChatAttachment,
  TeamChatAttachment,
  type TeamChatAttachmentInput,
} from './attachment.js';
import type { TeamChatAttachmentPayload, TeamChatPayload } from './payload.js';

/**
 * Builds a message for a Rocket.Chat incoming webhook; every setter returns the message.
 *
 * @example
 * TeamChatMessage.create()
 *   .text('Deploy finished')
 *   .username('deploy-bot')
 *   .emoji(':rocket:')
 *   .attachment((a) => a.title('Build 812', 'https://ci.example.com/812').color('good').field('Took', '3m', true));
 */
export class TeamChatMessage {
  #text: string | undefined;
  #username: string | undefined;
  #avatar: string | undefined;
  #emoji: string | undefined;
  readonly #attachments: TeamChatAttachmentPayload[] = [];

  /** Starts an empty message, or one with its text. */
  static create(text?: string): TeamChatMessage {
    const message = new TeamChatMessage();
    return text === undefined ? message : message.text(text);
  }

  text(text: string): this {
    this.#text = text;
    return this;
  }

  /** The name shown as the sender (Rocket.Chat's alias; the hook's bot needs the impersonate permission). */
  username(username: string): this {
    this.#username = username;
    return this;
  }

  /** The sender's avatar by absolute http(s) URL; when set, Rocket.Chat ignores the emoji. */
  avatar(url: string): this {
    this.#avatar = url;
    return this;
  }

  /** The sender's emoji avatar, such as `:rocket:`. */
  emoji(emoji: string): this {
    this.#emoji = emoji;
    return this;
  }

  /** Adds an attachment, built by a callback or given as an object (or a built {@link TeamChatAttachment}). */
  attachment(
    attachment:
      | ((builder: TeamChatAttachment) => TeamChatAttachment | undefined)
      | TeamChatAttachment
      | TeamChatAttachmentInput,
  ): this {
    if (typeof attachment === 'function') {
      const builder = new TeamChatAttachment();
      this.#attachments.push((attachment(builder) ?? builder).toArray());
    } else if (attachment instanceof TeamChatAttachment) {
      this.#attachments.push(attachment.toArray());
    } else {
      this.#attachments.push(normalizeTeamChatAttachment(attachment));
    }
    return this;
  }

  getText(): string | undefined {
    return this.#text;
  }

  getUsername(): string | undefined {
    return this.#username;
  }

  getAvatar(): string | undefined {
    return this.#avatar;
  }

  getEmoji(): string | undefined {
    return this.#emoji;
  }

  /** The attachments added so far, each as it will be sent. */
  getAttachments(): readonly TeamChatAttachmentPayload[] {
    return this.#attachments.map((attachment) => ({ ...attachment }));
  }

  /** The webhook body: `text`, `username`, `avatar`, `emoji`, `attachments`, with empty parts left out. */
  toArray(): TeamChatPayload {
    const out: { -readonly [K in keyof TeamChatPayload]?: TeamChatPayload[K] } = {};
    if (this.#text) out.text = this.#text;
    if (this.#username) out.username = this.#username;
    if (this.#avatar) out.avatar = this.#avatar;
    if (this.#emoji) out.emoji = this.#emoji;
    const attachments = this.#attachments.filter((attachment) => Object.keys(attachment).length > 0);
    if (attachments.length > 0) out.attachments = attachments;
    return out;
  }

  /** The same as {@link TeamChatMessage.toArray}, so `JSON.stringify(message)` gives the body. */
  toJSON(): TeamChatPayload {
    return this.toArray();
  }
}
