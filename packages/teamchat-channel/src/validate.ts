import { isHttpUrl } from './internal/url.js';
import type { TeamChatPayload } from './payload.js';

/** Why a message was refused: one line per problem, each naming the key at fault. */
export interface TeamChatValidationError {
  readonly message: string;
  readonly problems: readonly string[];
}

/** The outcome of {@link validateTeamChatPayload}. */
export type TeamChatValidation =
  | { readonly ok: true; readonly value: TeamChatPayload }
  | { readonly ok: false; readonly error: TeamChatValidationError };

// The URL keys Rocket.Chat checks on attachments (it refuses relative URLs with "Invalid href value provided").
const ATTACHMENT_URL_KEYS = ['title_link', 'thumb_url', 'image_url', 'author_link', 'author_icon'] as const;
const ATTACHMENT_TEXT_KEYS = ['title', 'text', 'author_name'] as const;
const HEX_COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
const EMOJI = /^:[\w+-]+:$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function checkUrl(problems: string[], path: string, value: unknown): void {
  if (value !== undefined && !isHttpUrl(value)) {
    problems.push(`${path}: must be an absolute http(s) URL, got ${show(value)}`);
  }
}

function checkString(problems: string[], path: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'string') problems.push(`${path}: must be a string`);
}

function checkField(problems: string[], path: string, field: unknown): void {
  if (!isRecord(field)) {
    problems.push(`${path}: must be an object {title, value, short}`);
    return;
  }
  if (typeof field.title !== 'string' || field.title.trim() === '') {
    problems.push(`${path}.title: must be a non-empty string`);
  }
  const value = field.value;
  const usable =
    (typeof value === 'string' && value.trim() !== '') ||
    (typeof value === 'number' && Number.isFinite(value) && value !== 0) ||
    value === true;
  if (!usable) {
    problems.push(
      `${path}.value: must be non-empty (Rocket.Chat refuses empty values, 0 and false; send "0" or "false" as text)`,
    );
  }
  if (field.short !== undefined && typeof field.short !== 'boolean') {
    problems.push(`${path}.short: must be a boolean`);
  }
}

function checkAttachment(problems: string[], path: string, attachment: unknown): void {
  if (!isRecord(attachment)) {
    problems.push(`${path}: must be an object`);
    return;
  }
  for (const key of ATTACHMENT_TEXT_KEYS) checkString(problems, `${path}.${key}`, attachment[key]);
  for (const key of ATTACHMENT_URL_KEYS) checkUrl(problems, `${path}.${key}`, attachment[key]);
  const { color, ts, fields } = attachment;
  if (color !== undefined && (typeof color !== 'string' || !HEX_COLOR.test(color))) {
    problems.push(
      `${path}.color: must be good, warning, danger or a hex colour such as #3366ff, got ${show(color)}`,
    );
  }
  if (ts !== undefined && (typeof ts !== 'string' || Number.isNaN(Date.parse(ts)))) {
    problems.push(`${path}.ts: must be an ISO-8601 date and time, got ${show(ts)}`);
  }
  if (fields !== undefined) {
    if (!Array.isArray(fields)) {
      problems.push(`${path}.fields: must be an array`);
    } else {
      for (const [index, field] of fields.entries()) checkField(problems, `${path}.fields[${index}]`, field);
    }
  }
}

/**
 * Checks a webhook body against the rules Rocket.Chat applies, before anything is sent: absolute http(s)
 * URLs, non-empty field titles and values, hex colours, ISO-8601 `ts`, and text or at least one attachment.
 */
export function validateTeamChatPayload(payload: unknown): TeamChatValidation {
  const problems: string[] = [];
  if (!isRecord(payload)) {
    problems.push('(message): must be an object');
  } else {
    for (const key of ['text', 'username', 'emoji'] as const) checkString(problems, key, payload[key]);
    checkUrl(problems, 'avatar', payload.avatar);
    if (typeof payload.emoji === 'string' && !EMOJI.test(payload.emoji)) {
      problems.push(`emoji: must look like :name:, got ${show(payload.emoji)}`);
    }
    const { attachments } = payload;
    if (attachments !== undefined) {
      if (!Array.isArray(attachments)) problems.push('attachments: must be an array');
      else {
        for (const [index, attachment] of attachments.entries()) {
          checkAttachment(problems, `attachments[${index}]`, attachment);
        }
      }
    }
    const hasText = typeof payload.text === 'string' && payload.text.trim() !== '';
    const hasAttachments = Array.isArray(attachments) && attachments.length > 0;
    if (!hasText && !hasAttachments) problems.push('(message): needs text or at least one attachment');
  }
  if (problems.length > 0) {
    return {
      ok: false,
      error: { message: `invalid team-chat message: ${problems.join('; ')}`, problems },
    };
  }
  return { ok: true, value: payload as TeamChatPayload };
}
