import { describe, expect, it } from 'vitest';
import { ownsChannel } from './broadcasting-auth.js';

describe('ownsChannel', () => {
  const ada = { id: 7, name: 'Ada' };
  it.each([
    ['private-User.7', true],
    ['presence-User.7', true],
    ['private-User.7.orders', true],
    ['private-User.70', false],
    ['private-User.8', false],
    ['private-Team.7', false],
    ['User.7', false],
    ['private-encrypted-User.7', false],
    ['presence-User.7x', false],
  ])('%s → %s', (channel, expected) => {
    expect(ownsChannel(ada, channel)).toBe(expected);
  });
});
