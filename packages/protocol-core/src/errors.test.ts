import { describe, expect, it } from 'vitest';
import { isProtocolCoreError, ProtocolCoreError } from './errors.js';

describe('ProtocolCoreError', () => {
  it('carries a code, a name and the message', () => {
    const error = new ProtocolCoreError('invalid_argument', 'bad node number');
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      code: 'invalid_argument',
      name: 'ProtocolCoreError',
      message: 'bad node number',
    });
  });

  it('passes the cause through', () => {
    const cause = new Error('root');
    expect(new ProtocolCoreError('invalid_argument', 'bad', { cause }).cause).toBe(cause);
  });
});

describe('isProtocolCoreError', () => {
  it('recognises a ProtocolCoreError', () => {
    expect(isProtocolCoreError(new ProtocolCoreError('invalid_argument', 'x'))).toBe(true);
  });

  it('refuses other errors and look-alike objects', () => {
    expect(isProtocolCoreError(new Error('x'))).toBe(false);
    expect(isProtocolCoreError({ name: 'ProtocolCoreError', code: 'invalid_argument' })).toBe(false);
    expect(isProtocolCoreError(undefined)).toBe(false);
  });
});
