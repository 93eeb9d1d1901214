import Pusher from 'pusher';
import { describe, expect, it } from 'vitest';
import { isProtocolCoreError, ProtocolCoreError } from './errors.js';
import { createSocketIdGenerator, isSocketId } from './socket-id.js';

const SHAPE = /^\d+\.\d+$/;

describe('createSocketIdGenerator', () => {
  it('makes ids of two unsigned integers joined by a dot', () => {
    const next = createSocketIdGenerator();
    for (let i = 0; i < 1_000; i++) expect(next()).toMatch(SHAPE);
  });

  it('never repeats an id over many calls', () => {
    const next = createSocketIdGenerator(7);
    const ids = new Set(Array.from({ length: 20_000 }, () => next()));
    expect(ids.size).toBe(20_000);
  });

  it('puts the node number before the dot', () => {
    const next = createSocketIdGenerator(42);
    expect(next().startsWith('42.')).toBe(true);
  });

  it('gives ids that never collide between two nodes with different numbers', () => {
    const nodeA = createSocketIdGenerator(1);
    const nodeB = createSocketIdGenerator(11);
    const fromA = new Set(Array.from({ length: 5_000 }, () => nodeA()));
    const collisions = Array.from({ length: 5_000 }, () => nodeB()).filter((id) => fromA.has(id));
    expect(collisions).toEqual([]);
  });

  it('picks a different node number for each generator by default', () => {
    const prefixes = new Set(Array.from({ length: 50 }, () => createSocketIdGenerator()().split('.')[0]));
    expect(prefixes.size).toBe(50);
  });

  it('accepts node number 0', () => {
    expect(createSocketIdGenerator(0)()).toMatch(/^0\.\d+$/);
  });

  it('makes ids the pusher SDK accepts as socket ids', () => {
    const next = createSocketIdGenerator();
    const sdk = new Pusher({ appId: '1', key: 'k', secret: 's', cluster: 'mt1' });
    expect(() => sdk.authorizeChannel(next(), 'private-a')).not.toThrow();
  });

  it.each([
    ['a negative number', -1],
    ['a fraction', 1.5],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a number beyond the safe integers', 2 ** 53],
  ])('refuses %s as node number with a ProtocolCoreError', (_name, nodeNumber) => {
    let thrown: unknown;
    try {
      createSocketIdGenerator(nodeNumber);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ProtocolCoreError);
    expect(isProtocolCoreError(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: 'invalid_argument', name: 'ProtocolCoreError' });
  });
});

describe('isSocketId', () => {
  it.each(['1234.1234', '0.0', '1.2', '99999999999999999999.1'])('accepts %j', (value) => {
    expect(isSocketId(value)).toBe(true);
  });

  it.each([
    '',
    '1234',
    '1234.',
    '.1234',
    '1.2.3',
    '-1.2',
    '1.-2',
    '12a.34',
    '1,2',
    ' 1.2',
    '1.2 ',
    '1.2\n',
    '\n1.2',
    '１.２',
    '1.2e3',
    '0x1.2',
  ])('refuses %j', (value) => {
    expect(isSocketId(value)).toBe(false);
  });
});
