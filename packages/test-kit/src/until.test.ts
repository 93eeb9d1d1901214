import { describe, expect, it } from 'vitest';
import { until } from './until.js';

describe('until', () => {
  it('resolves once a predicate answers true', async () => {
    let calls = 0;
    await until(() => ++calls === 3);
    expect(calls).toBe(3);
  });

  it('resolves once a block of expects stops throwing', async () => {
    let calls = 0;
    await until(() => expect(++calls).toBe(3));
    expect(calls).toBe(3);
  });

  it('names the condition it waited for when it times out', async () => {
    await expect(until(() => false, { what: 'the answer', limitMs: 50 })).rejects.toThrow(
      'timed out after 50 ms waiting for the answer',
    );
  });

  it('quotes an unnamed condition and gives the last reason it failed', async () => {
    const failure = until(
      () => {
        throw new Error('still 2 frames');
      },
      { limitMs: 50 },
    );
    await expect(failure).rejects.toThrow(/waiting for \(\) => \{[\s\S]*: still 2 frames$/);
  });
});
