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

describe('parseLog keeps one entry per logged record', () => {
  it('keeps a pretty-printed object with its closing brace in the record that logged it', () => {
    const entries = parseLog(
      '2026-01-01T10:00:00Z ERROR Unhandled rejection {\n  "code": "ECONNRESET",\n  "retry": true\n}\n2026-01-01T10:00:01Z INFO retrying\n',
      'app.log',
    );
    expect(entries).toEqual([
      {
        time: '2026-01-01T10:00:00.000Z',
        level: 'error',
        message: 'Unhandled rejection {\n  "code": "ECONNRESET",\n  "retry": true\n}',
        file: 'app.log',
      },
      { time: '2026-01-01T10:00:01.000Z', level: 'info', message: 'retrying', file: 'app.log' },
    ]);
  });

  it('keeps a code frame and the stack after it in their record', () => {
    const entries = parseLog(
      [
        '2026-01-01 10:00:00 ERROR Failed to compile src/app.ts',
        '> 5 | foo(',
        '    |    ^',
        'SyntaxError: Unexpected token',
        '    at parse (loader.js:1:1)',
        '2026-01-01 10:00:01 INFO retrying',
      ].join('\n'),
      'dev.log',
    );
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({
      level: 'error',
      message: 'Failed to compile src/app.ts\n> 5 | foo(\n    |    ^',
      stack: 'SyntaxError: Unexpected token\n    at parse (loader.js:1:1)',
    });
  });

  it("reads pino-pretty's time-of-day records with their indented error object", () => {
    const entries = parseLog(
      '[10:00:00.000] INFO (812): listening\n[10:00:02.120] ERROR (812 on api-1): request failed\n    err: {\n      "type": "Error"\n    }\n',
      'pretty.log',
    );
    expect(entries.map((entry) => [entry.level, entry.message])).toEqual([
      ['info', 'listening'],
      ['error', 'request failed\n    err: {\n      "type": "Error"\n    }'],
    ]);
  });

  it('still reads a file of bare lines as one entry each', () => {
    expect(parseLog('server started\nGET / 200\n', 'out.log').map((entry) => entry.message)).toEqual([
      'server started',
      'GET / 200',
    ]);
  });
});
