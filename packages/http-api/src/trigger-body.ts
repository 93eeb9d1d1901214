import { fail, isSocketId, ok, type Result, validateChannelName } from '@herald/protocol-core';
import { z } from 'zod';
import type { EventLimits } from './api-app.js';
import { type InfoAttribute, parseInfo } from './channel-info.js';
import { invalid, issueOf, type ValidationIssue } from './validation.js';

/** One event to publish, checked against the app's limits. */
export interface TriggeredEvent {
  readonly name: string;
  readonly channels: readonly string[];
  /** Exactly as sent: never parsed or re-encoded. */
  readonly data: string;
  readonly socketId?: string | undefined;
  /** The counts to report back per channel. */
  readonly info: ReadonlySet<InfoAttribute>;
}

const TRIGGER_INFO: readonly InfoAttribute[] = ['user_count', 'subscription_count'];

const socketId = z.string().refine(isSocketId, { message: 'must be a socket id such as 1234.5678' });

const eventFields = {
  name: z.string().min(1, { message: 'must not be empty' }),
  data: z.string({ message: 'must be a string' }),
  // Some server libraries send null for "not given".
  socket_id: socketId.nullish().transform((value) => value ?? undefined),
  info: z
    .string()
    .nullish()
    .transform((value) => value ?? undefined),
};

const triggerSchema = z.object({
  ...eventFields,
  channels: z.array(z.string()).optional(),
  channel: z.string().optional(),
});

const batchSchema = z.object({
  batch: z.array(z.object({ ...eventFields, channel: z.string() })),
});

/** An event's fields once their types are known. */
export interface RawEvent {
  readonly name: string;
  readonly data: string;
  readonly channels: readonly string[];
  readonly socket_id?: string | undefined;
  readonly info?: string | undefined;
}

/** Checks one event's names, channels, info and data size against the app's limits. */
export function checkEvent(
  raw: RawEvent,
  limits: EventLimits,
  at: string,
): Result<TriggeredEvent, ValidationIssue> {
  if (raw.name.length > limits.maxEventNameLength) {
    return fail(invalid(`${at}name`, `must be at most ${limits.maxEventNameLength} characters`));
  }
  const channelsField = at === '' ? 'channels' : `${at}channel`;
  if (raw.channels.length === 0) return fail(invalid(channelsField, 'must name at least one channel'));
  if (raw.channels.length > limits.maxChannelsAtOnce) {
    return fail(invalid(channelsField, `must name at most ${limits.maxChannelsAtOnce} channels`));
  }
  for (const [index, channel] of raw.channels.entries()) {
    const checked = validateChannelName(channel, limits.maxChannelNameLength);
    if (!checked.ok) {
      const field = at === '' && raw.channels.length > 1 ? `channels[${index}]` : channelsField;
      return fail(invalid(field, checked.error.message));
    }
  }
  const info = parseInfo(raw.info, TRIGGER_INFO, `${at}info`);
  if (!info.ok) return info;
  if (Buffer.byteLength(raw.data, 'utf8') > limits.maxPayloadBytes) {
    return fail({
      field: `${at}data`,
      message: `${at}data: must be at most ${limits.maxPayloadBytes / 1024} KB`,
      kind: 'payload_too_large',
    });
  }
  return ok({
    name: raw.name,
    channels: raw.channels,
    data: raw.data,
    socketId: raw.socket_id,
    info: info.value,
  });
}

/**
 * Checks the body of `POST /apps/{id}/events`: `name`, `data` (a string), `channels` or `channel`, optional
 * `socket_id` and `info`, within the app's limits.
 */
export function parseTriggerBody(
  body: unknown,
  limits: EventLimits,
): Result<TriggeredEvent, ValidationIssue> {
  const parsed = triggerSchema.safeParse(body);
  if (!parsed.success) return fail(issueOf(parsed.error));
  const { channels, channel, ...rest } = parsed.data;
  if (channels !== undefined && channel !== undefined) {
    return fail(invalid('channels', 'give either channels or channel, not both'));
  }
  const named = channels ?? (channel === undefined ? undefined : [channel]);
  if (named === undefined) return fail(invalid('channels', 'is required (or channel)'));
  return checkEvent({ ...rest, channels: named }, limits, '');
}

/** Checks the body of `POST /apps/{id}/batch_events`: `{batch: [...]}` of at most the app's batch size. */
export function parseBatchBody(
  body: unknown,
  limits: EventLimits,
): Result<readonly TriggeredEvent[], ValidationIssue> {
  const parsed = batchSchema.safeParse(body);
  if (!parsed.success) return fail(issueOf(parsed.error));
  const { batch } = parsed.data;
  if (batch.length === 0) return fail(invalid('batch', 'must hold at least one event'));
  if (batch.length > limits.maxBatchSize) {
    return fail(invalid('batch', `must hold at most ${limits.maxBatchSize} events`));
  }
  const events: TriggeredEvent[] = [];
  for (const [index, { channel, ...rest }] of batch.entries()) {
    const checked = checkEvent({ ...rest, channels: [channel] }, limits, `batch[${index}].`);
    if (!checked.ok) return checked;
    events.push(checked.value);
  }
  return ok(events);
}
