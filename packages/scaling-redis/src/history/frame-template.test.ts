import { encodeChannelEvent } from '@herald/protocol-core';
import { describe, expect, it } from 'vitest';
import { fillTemplate, frameTemplate } from './frame-template.js';

describe('frameTemplate', () => {
  it('rebuilds the frame the encoder writes for a position', () => {
    const message = { event: 'tick', channel: 'orders', data: '{"i":1}' };
    const template = frameTemplate((position) => encodeChannelEvent(message, position));
    const position = { serial: 42, epoch: 'ab12.3' };
    expect(fillTemplate(template, position)).toBe(encodeChannelEvent(message, position));
  });

  it('finds the position fields even when the data holds the marker values', () => {
    const data = JSON.stringify({ text: `${Number.MAX_SAFE_INTEGER} herald~epoch~mark` });
    const message = { event: 'tick', channel: 'orders', data };
    const template = frameTemplate((position) => encodeChannelEvent(message, position));
    const position = { serial: 7, epoch: 'e' };
    expect(fillTemplate(template, position)).toBe(encodeChannelEvent(message, position));
  });

  it('refuses an encoder that leaves the position out', () => {
    expect(() => frameTemplate(() => '{"event":"tick"}')).toThrow(/serial, then its epoch/);
  });
});
