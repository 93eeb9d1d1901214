import type { TeamChatAttachmentPayload, TeamChatField } from './payload.js';

/**
 * The colour names the builder takes, and the hex colours sent for them: Rocket.Chat stores `color` as
 * given and uses it as a CSS colour, where Slack's names mean nothing.
 */
export const TEAMCHAT_COLORS = {
  good: '#2eb886',
  warning: '#daa038',
  danger: '#a30200',
} as const;

/** A colour name the builder maps, or any hex colour. */
export type TeamChatColor = keyof typeof TEAMCHAT_COLORS | `#${string}`;

/** Maps `good`, `warning` and `danger` to their hex colour; anything else is kept as given. */
export function resolveTeamChatColor(color: string): string {
  return Object.hasOwn(TEAMCHAT_COLORS, color)
    ? TEAMCHAT_COLORS[color as keyof typeof TEAMCHAT_COLORS]
    : color;
}

/**
 * Turns a timestamp into the ISO-8601 string sent as `ts`: a `Date`, or a Unix time in seconds.
 * Rocket.Chat passes `ts` through to clients that parse it as a date, so integer seconds would be misread.
 */
export function teamChatTimestamp(value: Date | number): string {
  const date = value instanceof Date ? value : new Date(value * 1000);
  // An invalid date is kept visible for validation rather than thrown here, where no context exists.
  return Number.isNaN(date.getTime()) ? 'Invalid Date' : date.toISOString();
}

type Mutable<T> = { -readonly [K in keyof T]?: T[K] };

/** Builds one attachment of a {@link TeamChatMessage}; every setter returns the builder. */
export class TeamChatAttachment {
  readonly #data: Mutable<Omit<TeamChatAttachmentPayload, 'fields'>> = {};
  readonly #fields: TeamChatField[] = [];

  /** Starts an empty attachment. */
  static create(): TeamChatAttachment {
    return new TeamChatAttachment();
  }

  /** The title, and the absolute http(s) URL it links to. */
  title(text: string, link?: string): this {
    this.#data.title = text;
    if (link !== undefined) this.#data.title_link = link;
    return this;
  }

  text(text: string): this {
    this.#data.text = text;
    return this;
  }

  /** The bar colour: `good`, `warning`, `danger` (sent as hex colours) or a hex colour such as `#3366ff`. */
  color(color: TeamChatColor): this {
    this.#data.color = resolveTeamChatColor(color);
    return this;
  }

  /** Adds a field; numbers and booleans are sent as text, since Rocket.Chat refuses `0` and `false`. */
  field(title: string, value: string | number | boolean, short = false): this {
    this.#fields.push({ title, value: String(value), short });
    return this;
  }

  /** A small image beside the text, by absolute http(s) URL. */
  thumb(url: string): this {
    this.#data.thumb_url = url;
    return this;
  }

  /** A large image under the text, by absolute http(s) URL. */
  image(url: string): this {
    this.#data.image_url = url;
    return this;
  }

  /** The author's name, the URL it links to and an icon URL. */
  author(name: string, link?: string, iconUrl?: string): this {
    this.#data.author_name = name;
    if (link !== undefined) this.#data.author_link = link;
    if (iconUrl !== undefined) this.#data.author_icon = iconUrl;
    return this;
  }

  /** When it happened: a `Date` or a Unix time in seconds, sent as an ISO-8601 `ts`. */
  timestamp(value: Date | number): this {
    this.#data.ts = teamChatTimestamp(value);
    return this;
  }

  /** The attachment as Rocket.Chat takes it, with empty parts left out. */
  toArray(): TeamChatAttachmentPayload {
    const out: Mutable<TeamChatAttachmentPayload> = {};
    for (const [key, value] of Object.entries(this.#data)) {
      if (value !== undefined && value !== '') (out as Record<string, unknown>)[key] = value;
    }
    if (this.#fields.length > 0) out.fields = this.#fields.map((field) => ({ ...field }));
    return out;
  }
}

/**
 * Normalises an attachment given as a plain object: colour names become hex colours, a `Date` or number
 * `ts` becomes ISO-8601, and empty parts are left out.
 */
export function normalizeTeamChatAttachment(
  input: TeamChatAttachmentPayload | TeamChatAttachmentInput,
): TeamChatAttachmentPayload {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined || value === null || value === '') continue;
    if (key === 'fields' && Array.isArray(value) && value.length === 0) continue;
    if (key === 'color' && typeof value === 'string') out.color = resolveTeamChatColor(value);
    else if (key === 'ts' && (value instanceof Date || typeof value === 'number'))
      out.ts = teamChatTimestamp(value);
    else out[key] = value;
  }
  return out as TeamChatAttachmentPayload;
}

/** An attachment as a plain object, where `color` may be a name and `ts` a `Date` or Unix seconds. */
export type TeamChatAttachmentInput = Omit<TeamChatAttachmentPayload, 'ts' | 'color'> & {
  readonly color?: TeamChatColor | string;
  readonly ts?: string | Date | number;
};
