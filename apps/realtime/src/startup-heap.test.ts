import { setImmediate as nextTurn } from 'node:timers/promises';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { collectStartupGarbage } from './startup-heap.js';

describe('collectStartupGarbage', () => {
  it('collects what nothing references any more', async () => {
    const dropped = new WeakRef({ payload: 'x'.repeat(1000) });
    await nextTurn(); // a WeakRef holds its target until the turn that made it ends
    collectStartupGarbage();
    expect(dropped.deref()).toBeUndefined();
  });

  it('leaves no gc function for contexts made afterwards', () => {
    collectStartupGarbage();
    expect(runInNewContext('typeof gc')).toBe('undefined');
    expect(typeof (globalThis as { gc?: unknown }).gc).toBe('undefined');
  });
});
