import { describe, expect, it } from 'vitest';
import { decodeWireMessage, encodeWireMessage } from './wire.js';

describe('encodeWireMessage', () => {
  it('appends the frame after a one-line header, byte for byte', () => {
    const frame = '{"event":"e","channel":"c","data":"{\\"a\\":\\"line\\\\nbreak\\"}"}\nraw newline';
    const raw = encodeWireMessage('node-1', {
      type: 'deliver',
      delivery: { appId: '1', channel: 'c', frame, excludeSocketId: '12.34' },
    });
    expect(raw.endsWith(`\n${frame}`)).toBe(true);
    expect(decodeWireMessage(raw)).toEqual({
      nodeId: 'node-1',
      message: { type: 'deliver', delivery: { appId: '1', channel: 'c', frame, excludeSocketId: '12.34' } },
    });
  });

  it('leaves the exclusion out when there is none', () => {
    const raw = encodeWireMessage('n', {
      type: 'deliver',
      delivery: { appId: '1', channel: 'c', frame: '{}' },
    });
    expect(decodeWireMessage(raw)?.message).toEqual({
      type: 'deliver',
      delivery: { appId: '1', channel: 'c', frame: '{}' },
    });
  });

  it('carries terminate and restart', () => {
    const terminate = { type: 'terminate', appId: '1', userId: 'u\n1' } as const;
    expect(decodeWireMessage(encodeWireMessage('n', terminate))).toEqual({ nodeId: 'n', message: terminate });
    expect(decodeWireMessage(encodeWireMessage('n', { type: 'restart' }))).toEqual({
      nodeId: 'n',
      message: { type: 'restart' },
    });
  });

  it('carries a user going online or offline', () => {
    for (const online of [true, false]) {
      const user = { type: 'user', appId: 'a', userId: 'u"1', online } as const;
      expect(decodeWireMessage(encodeWireMessage('n', user))).toEqual({ nodeId: 'n', message: user });
    }
  });

  it('carries a count change with its app and channel', () => {
    const count = { type: 'count', appId: 'a:1', channel: 'room-1' } as const;
    expect(decodeWireMessage(encodeWireMessage('n', count))).toEqual({ nodeId: 'n', message: count });
  });
});

describe('decodeWireMessage', () => {
  it.each([
    ['no header line', '{"event":"x"}'],
    ['a header that is not JSON', 'not json\n{}'],
    ['another version', '[2,"r","n"]\n'],
    ['an unknown type', '[1,"x","n"]\n'],
    ['a deliver without its fields', '[1,"d","n","1"]\n{}'],
    ['a count without its channel', '[1,"c","n","1"]\n'],
    ['a header with a number where a string belongs', '[1,"t","n",1,"u"]\n'],
  ])('refuses %s', (_what, raw) => {
    expect(decodeWireMessage(raw)).toBeUndefined();
  });

  it('carries a console watch and a debug record, the record byte for byte', () => {
    const watch = { type: 'debug_watch', appId: 'a\n1' } as const;
    expect(decodeWireMessage(encodeWireMessage('n', watch))?.message).toEqual(watch);
    const debug = { type: 'debug', appId: '1', record: '{"kind":"api_message","channel":"x\ny"}' } as const;
    expect(decodeWireMessage(encodeWireMessage('n', debug))?.message).toEqual(debug);
  });
});
