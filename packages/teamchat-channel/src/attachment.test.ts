import { describe, expect, it } from 'vitest';
import { resolveTeamChatColor, TeamChatAttachment, teamChatTimestamp } from './attachment.js';

describe('TeamChatAttachment', () => {
  it('maps good, warning and danger to hex colours and keeps a hex colour as given', () => {
    expect(['good', 'warning', 'danger', '#3366ff'].map(resolveTeamChatColor)).toEqual([
      '#2eb886',
      '#daa038',
      '#a30200',
      '#3366ff',
    ]);
  });

  it('does not treat inherited object keys as colour names', () => {
    expect(resolveTeamChatColor('toString')).toBe('toString');
  });

  it('sends the timestamp as ISO-8601 from Unix seconds or a Date', () => {
    expect(teamChatTimestamp(1_700_000_000)).toBe('2023-11-14T22:13:20.000Z');
    expect(teamChatTimestamp(new Date('2024-02-29T12:00:00Z'))).toBe('2024-02-29T12:00:00.000Z');
    expect(teamChatTimestamp(Number.NaN)).toBe('Invalid Date');
  });

  it('gives title and author links only when they are given, and fields in order', () => {
    const built = TeamChatAttachment.create()
      .title('T')
      .author('A')
      .field('k', 'v')
      .field('n', 0, true)
      .field('b', false)
      .toArray();
    expect(built).toEqual({
      title: 'T',
      author_name: 'A',
      fields: [
        { title: 'k', value: 'v', short: false },
        { title: 'n', value: '0', short: true },
        { title: 'b', value: 'false', short: false },
      ],
    });
  });
});
