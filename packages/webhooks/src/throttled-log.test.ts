import { describe, expect, it } from 'vitest';
import { createThrottledLog } from './throttled-log.js';

describe('createThrottledLog', () => {
  it('writes one line per key every 10 s, counting the events of the lines it held back', () => {
    let now = 0;
    const lines: string[] = [];
    const log = createThrottledLog(() => now);
    const write = (key: string, events: number) => log(key, events, (count) => lines.push(`${key} ${count}`));
    write('a', 1);
    write('a', 2);
    write('b', 5);
    now = 9_999;
    write('a', 3);
    now = 10_000;
    write('a', 1);
    expect(lines).toEqual(['a 1', 'b 5', 'a 6']);
  });
});
