import { describe, expect, it } from 'vitest';
import { parseLog } from './log-files.js';

describe('parseLog', () => {
  it('reads pino lines: numeric levels, epoch times, err with stack, other fields kept', () => {
    const [entry] = parseLog(
      '{"level":50,"time":0,"pid":1,"hostname":"h","msg":"boom","err":{"message":"x","stack":"Error: x\\n    at f"},"reqId":7}\n',
      'app.log',
    );
    expect(entry).toEqual({
      time: '1970-01-01T00:00:00.000Z',
      level: 'error',
      message: 'boom',
      stack: 'Error: x\n    at f',
      file: 'app.log',
      fields: { reqId: 7 },
    });
  });

  it('reads winston json lines', () => {
    const [entry] = parseLog('{"level":"warn","message":"slow","timestamp":"2026-01-01T00:00:00Z"}', 'w.log');
    expect(entry).toMatchObject({ level: 'warn', message: 'slow', time: '2026-01-01T00:00:00.000Z' });
  });

  it('reads plain lines and joins stack lines to the entry above', () => {
    const entries = parseLog(
      '2026-01-01 10:00:00 INFO started\n2026-01-01 10:00:01 ERROR failed to connect\n    at connect (db.js:1:1)\n',
      'plain.log',
    );
    expect(entries).toHaveLength(2);
    expect(entries[1]).toMatchObject({
      level: 'error',
      message: 'failed to connect',
      stack: '    at connect (db.js:1:1)',
    });
  });
});
