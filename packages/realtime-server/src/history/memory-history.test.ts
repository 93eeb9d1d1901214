import type { HistoryPosition } from '@herald/protocol-core';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryHistory, type MemoryHistoryOptions } from './memory-history.js';
import type { ChannelHistory, HistoryLimits, HistoryRead } from './types.js';

const limits: HistoryLimits = { maxEvents: 5, maxAgeMs: 60_000 };
const opened: ChannelHistory[] = [];
afterEach(() => {
  for (const history of opened.splice(0)) history.close();
});

function open(options: MemoryHistoryOptions = {}): ChannelHistory {
  const history = createMemoryHistory(options);
  opened.push(history);
  return history;
}

/** Appends events whose frames are `<channel>#<serial>` and answers the position of the last one. */
function publish(history: ChannelHistory, channel: string, count: number, bounds = limits): HistoryPosition {
  let last: HistoryPosition = { serial: 0, epoch: '' };
  for (let i = 0; i < count; i += 1) {
    const frame = history.append(
      'app',
      channel,
      (at) => {
        last = at;
        return `${channel}#${at.serial}`;
      },
      bounds,
    );
    // The memory store answers at once, with the frame it encoded.
    expect(frame).toBe(`${channel}#${last.serial}`);
  }
  return last;
}

const read = (history: ChannelHistory, channel: string, after: HistoryPosition, bounds = limits) =>
  history.read('app', channel, after, bounds) as HistoryRead;

describe('createMemoryHistory', () => {
  it('numbers each channel’s events from 1, one more per event, apart from other channels', () => {
    const history = open();
    expect(publish(history, 'a', 3).serial).toBe(3);
    expect(publish(history, 'b', 1).serial).toBe(1);
    expect(publish(history, 'a', 1).serial).toBe(4);
  });

  it('answers the frames after a position, in order, and none after the last', () => {
    const history = open();
    const last = publish(history, 'a', 4);
    expect(read(history, 'a', { serial: 1, epoch: last.epoch })).toEqual({
      ok: true,
      frames: ['a#2', 'a#3', 'a#4'],
    });
    expect(read(history, 'a', last)).toEqual({ ok: true, frames: [] });
  });

  it('tells a fresh subscriber the position, and replays from 0 for one that saw nothing yet', () => {
    const history = open();
    const start = history.position('app', 'a', limits) as HistoryPosition;
    expect(start.serial).toBe(0);
    publish(history, 'a', 2);
    expect(read(history, 'a', start)).toEqual({ ok: true, frames: ['a#1', 'a#2'] });
  });

  it('keeps at most max events per channel and reports older positions as trimmed', () => {
    const history = open();
    const last = publish(history, 'a', 8);
    expect(read(history, 'a', { serial: 3, epoch: last.epoch })).toEqual({
      ok: true,
      frames: ['a#4', 'a#5', 'a#6', 'a#7', 'a#8'],
    });
    expect(read(history, 'a', { serial: 2, epoch: last.epoch })).toEqual({
      ok: false,
      failure: { reason: 'trimmed', firstSerial: 4 },
      position: last,
    });
  });

  it('drops events older than the maximum age and reports them as expired', () => {
    let now = 1_000_000;
    const history = open({ now: () => now });
    const first = publish(history, 'a', 2);
    now += 61_000;
    expect(read(history, 'a', { serial: 1, epoch: first.epoch })).toEqual({
      ok: false,
      failure: { reason: 'expired', firstSerial: null },
      position: first,
    });
    publish(history, 'a', 1);
    expect(read(history, 'a', { serial: 1, epoch: first.epoch })).toMatchObject({
      ok: false,
      failure: { reason: 'expired', firstSerial: 3 },
    });
  });

  it('drops the app’s oldest events, across channels, past its byte cap', () => {
    // Each frame here is 3 characters (6 bytes counted): a cap of 30 holds five of them.
    const history = open({ maxBytesPerApp: 30 });
    const bounds = { maxEvents: 100, maxAgeMs: 60_000 };
    const a = publish(history, 'a', 3, bounds);
    const b = publish(history, 'b', 3, bounds);
    expect(read(history, 'a', { serial: 0, epoch: a.epoch }, bounds)).toMatchObject({
      ok: false,
      failure: { reason: 'trimmed', firstSerial: 2 },
    });
    expect(read(history, 'b', { serial: 0, epoch: b.epoch }, bounds)).toEqual({
      ok: true,
      frames: ['b#1', 'b#2', 'b#3'],
    });
    // What the /metrics gauges read: the five events held, within the cap.
    expect(history.size?.('app')).toEqual({ events: 5, bytes: 30 });
    expect(history.size?.('other')).toEqual({ events: 0, bytes: 0 });
  });

  it('tells a position from another life of the history as restarted', () => {
    const before = open();
    const old = publish(before, 'a', 3);
    const after = open();
    publish(after, 'a', 5);
    expect(read(after, 'a', old)).toMatchObject({
      ok: false,
      failure: { reason: 'restarted', firstSerial: 1 },
    });
    expect(read(after, 'a', { serial: 1, epoch: '' })).toMatchObject({
      ok: false,
      failure: { reason: 'restarted' },
    });
  });

  it('tells a serial beyond the last one as restarted', () => {
    const history = open();
    const last = publish(history, 'a', 2);
    expect(read(history, 'a', { serial: 9, epoch: last.epoch })).toMatchObject({
      ok: false,
      failure: { reason: 'restarted' },
    });
  });

  it('lists kept events after a serial, at most limit of them, with the position and first serial held', () => {
    const history = open();
    const last = publish(history, 'a', 8);
    const list = (afterSerial: number, limit: number) =>
      history.list('app', 'a', { afterSerial, limit }, limits);
    expect(list(4, 2)).toEqual({ position: last, firstSerial: 4, frames: ['a#5', 'a#6'] });
    // Before the first serial held: from the first one held (the caller sees the gap from firstSerial).
    expect(list(0, 3)).toEqual({ position: last, firstSerial: 4, frames: ['a#4', 'a#5', 'a#6'] });
    expect(list(8, 10)).toEqual({ position: last, firstSerial: 4, frames: [] });
    expect(history.list('app', 'quiet', { afterSerial: 0, limit: 10 }, limits)).toMatchObject({
      position: { serial: 0 },
      firstSerial: null,
      frames: [],
    });
  });

  it('forgets an app: its channels start again in a new epoch', () => {
    const history = open();
    const last = publish(history, 'a', 2);
    history.forget('app');
    const again = publish(history, 'a', 1);
    expect(again.serial).toBe(1);
    expect(again.epoch).not.toBe(last.epoch);
    expect(read(history, 'a', last)).toMatchObject({ ok: false, failure: { reason: 'expired' } });
  });
});
