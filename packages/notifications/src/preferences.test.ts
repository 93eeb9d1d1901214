import { describe, expect, it } from 'vitest';
import { refusedChannelsOf } from './preferences.js';

describe('refusedChannelsOf', () => {
  const preferences = {
    '*': { teamchat: false, broadcast: false },
    CommentReplied: { broadcast: true, database: false },
  };

  it('lets a type’s own entry win over `*`, channel by channel', () => {
    expect([...refusedChannelsOf(preferences, 'CommentReplied')].sort()).toEqual(['database', 'teamchat']);
  });

  it('uses `*` for a type without an entry', () => {
    expect([...refusedChannelsOf(preferences, 'InvoicePaid')].sort()).toEqual(['broadcast', 'teamchat']);
  });

  it('refuses nothing when nothing is set', () => {
    expect(refusedChannelsOf({}, 'InvoicePaid').size).toBe(0);
  });
});
