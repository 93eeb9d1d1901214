/** One attachment field as Rocket.Chat takes it. */
export interface TeamChatField {
  readonly title: string;
  readonly value: string | number | boolean;
  readonly short: boolean;
}

/** One attachment of the webhook body, as Rocket.Chat's incoming webhooks take it. */
export interface TeamChatAttachmentPayload {
  readonly title?: string;
  readonly title_link?: string;
  readonly text?: string;
  /** A hex colour (`#2eb886`); the builder maps `good`, `warning` and `danger` to one. */
  readonly color?: string;
  readonly fields?: readonly TeamChatField[];
  readonly thumb_url?: string;
  readonly image_url?: string;
  readonly author_name?: string;
  readonly author_link?: string;
  readonly author_icon?: string;
  /** ISO-8601 date and time. */
  readonly ts?: string;
}

/** A `#channel` or `@user` destination, or several. */
export type TeamChatDestination = string | readonly string[];

/** The JSON body posted to a Rocket.Chat incoming webhook. */
export interface TeamChatPayload {
  readonly text?: string;
  readonly username?: string;
  readonly avatar?: string;
  readonly emoji?: string;
  readonly attachments?: readonly TeamChatAttachmentPayload[];
  /** Set only when the notification is routed: hooks that do not allow overriding refuse it. */
  readonly channel?: TeamChatDestination;
}
