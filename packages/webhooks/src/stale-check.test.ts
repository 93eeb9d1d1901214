import { describe, expect, it } from 'vitest';
import { type WebhookEvent, webhookEvent } from './events.js';
import { createStaleCheck } from './stale-check.js';

/** A check that answers from a fixed table of what holds now, and records what it was asked. */
function present(holds: (event: WebhookEvent) => boolean) {
  const asked: WebhookEvent[] = [];
  const check = (_appId: string, event: WebhookEvent) => {
    asked.push(event);
    return holds(event);
  };
  return { check, asked };
}

const never = () => {
  throw new Error('not expected');
};

describe('createStaleCheck', () => {
  it('lets a later vacated of a channel overtake an earlier occupied of it: only the vacated is asked about', async () => {
    const occupied = webhookEvent.channelOccupied('room');
    const vacated = webhookEvent.channelVacated('room');
    const { check, asked } = present(() => true);
    const kept = await createStaleCheck(check, never)('app-1', [occupied, vacated]);
    expect(asked).toEqual([vacated]);
    expect(kept).toEqual([occupied, vacated]);
  });

  it('leaves out the last change of a subject that no longer holds, and keeps the earlier ones of it', async () => {
    const events = [
      webhookEvent.channelOccupied('room'),
      webhookEvent.channelVacated('room'),
      webhookEvent.memberAdded('presence-lobby', 'u1'),
    ];
    const { check } = present((event) => event.name !== 'channel_vacated');
    expect(await createStaleCheck(check, never)('app-1', events)).toEqual([events[0], events[2]]);
  });

  it('asks nothing and keeps everything in a batch of events that record a moment', async () => {
    const events = [webhookEvent.cacheMiss('cache-a'), webhookEvent.cacheMiss('cache-b')];
    const { check, asked } = present(() => false);
    expect(await createStaleCheck(check, never)('app-1', events)).toBe(events);
    expect(asked).toEqual([]);
  });

  it('keeps an event whose check throws or rejects, and reports each failure', async () => {
    const failures: string[] = [];
    const events = [webhookEvent.channelVacated('a'), webhookEvent.channelVacated('b')];
    const check = (_appId: string, event: WebhookEvent) => {
      if (event.channel === 'a') throw new Error('store down');
      return Promise.reject(new Error('timed out'));
    };
    const kept = await createStaleCheck(check, (appId, event, error) =>
      failures.push(`${appId} ${event.channel} ${(error as Error).message}`),
    )('app-1', events);
    expect(kept).toEqual(events);
    expect(failures).toEqual(['app-1 a store down', 'app-1 b timed out']);
  });

  it('waits for checks that answer later, and asks with the app id', async () => {
    const apps: string[] = [];
    const check = async (appId: string, event: WebhookEvent) => {
      apps.push(appId);
      return event.name !== 'member_removed';
    };
    const events = [
      webhookEvent.memberAdded('presence-x', 'u1'),
      webhookEvent.memberRemoved('presence-x', 'u2'),
    ];
    expect(await createStaleCheck(check, never)('app-7', events)).toEqual([events[0]]);
    expect(apps).toEqual(['app-7', 'app-7']);
  });

  it("does not ask within the caller's own call stack", async () => {
    const { check, asked } = present(() => true);
    const checking = createStaleCheck(check, never)('app-1', [webhookEvent.channelOccupied('new')]);
    expect(asked).toEqual([]);
    await checking;
    expect(asked).toHaveLength(1);
  });
});
