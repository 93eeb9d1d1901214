// The store learns a frame's serial and epoch only inside Redis, where the append script assigns them, yet the
// server encodes frames (the port hands `append` an encoder, called once). So the frame is encoded once with marker
// values and cut around them; the script puts the real serial and epoch in between, and so does the node for the
// frame it fans out. The position fields come after the event's data, so the last occurrence of each marker is the
// field, whatever the data holds.

import type { HistoryPosition } from '@herald/protocol-core';
import { ScalingRedisError } from '../errors.js';

const SERIAL_MARK = Number.MAX_SAFE_INTEGER;
const EPOCH_MARK = 'herald~epoch~mark';

/** A frame cut around its serial and epoch: `head` serial `middle` epoch `tail`. */
export interface FrameTemplate {
  readonly head: string;
  readonly middle: string;
  readonly tail: string;
}

/**
 * Encodes a frame once with marker values and cuts it around them.
 * @throws {ScalingRedisError} `invalid_options` when the encoder does not write the serial before the epoch.
 */
export function frameTemplate(encode: (position: HistoryPosition) => string): FrameTemplate {
  const frame = encode({ serial: SERIAL_MARK, epoch: EPOCH_MARK });
  const epochAt = frame.lastIndexOf(EPOCH_MARK);
  const serialText = String(SERIAL_MARK);
  const serialAt = epochAt < 0 ? -1 : frame.lastIndexOf(serialText, epochAt);
  if (serialAt < 0) {
    throw new ScalingRedisError('invalid_options', 'a history frame must carry its serial, then its epoch');
  }
  return {
    head: frame.slice(0, serialAt),
    middle: frame.slice(serialAt + serialText.length, epochAt),
    tail: frame.slice(epochAt + EPOCH_MARK.length),
  };
}

/** The frame of a template at a position, as the append script builds it. */
export function fillTemplate(template: FrameTemplate, position: HistoryPosition): string {
  return `${template.head}${position.serial}${template.middle}${position.epoch}${template.tail}`;
}
