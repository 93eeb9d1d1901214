import { describe, expect, it } from 'vitest';
import { validateTeamChatPayload } from './validate.js';

function problems(payload: unknown): readonly string[] {
  const result = validateTeamChatPayload(payload);
  return result.ok ? [] : result.error.problems;
}

describe('validateTeamChatPayload', () => {
  it('accepts text alone, or attachments alone', () => {
    expect(validateTeamChatPayload({ text: 'hi' })).toEqual({ ok: true, value: { text: 'hi' } });
    expect(problems({ attachments: [{ title: 't' }] })).toEqual([]);
  });

  it('refuses a message with neither text nor attachments, blank text included', () => {
    expect(problems({ text: '   ', attachments: [] })).toEqual([
      '(message): needs text or at least one attachment',
    ]);
  });

  it('refuses relative and non-http URLs wherever Rocket.Chat wants a URL', () => {
    expect(
      problems({
        text: 'x',
        avatar: 'avatar.png',
        attachments: [
          {
            title_link: '/relative',
            thumb_url: 'javascript:alert(1)',
            image_url: 'ftp://x.test/i.png',
            author_link: '//x.test',
            author_icon: 'https://x.test/ok.png',
          },
        ],
      }),
    ).toEqual([
      'avatar: must be an absolute http(s) URL, got "avatar.png"',
      'attachments[0].title_link: must be an absolute http(s) URL, got "/relative"',
      'attachments[0].thumb_url: must be an absolute http(s) URL, got "javascript:alert(1)"',
      'attachments[0].image_url: must be an absolute http(s) URL, got "ftp://x.test/i.png"',
      'attachments[0].author_link: must be an absolute http(s) URL, got "//x.test"',
    ]);
  });

  it('refuses fields without a title or a value, naming each', () => {
    const found = problems({
      attachments: [
        {
          fields: [
            { title: '', value: 'v', short: false },
            { title: 't', value: ' ' },
            { title: 't', value: 0 },
          ],
        },
      ],
    });
    expect(found).toHaveLength(3);
    expect(found[0]).toBe('attachments[0].fields[0].title: must be a non-empty string');
    expect(found[1]).toMatch(/^attachments\[0\]\.fields\[1\]\.value: must be non-empty/);
    expect(found[2]).toMatch(/^attachments\[0\]\.fields\[2\]\.value: must be non-empty/);
  });

  it('refuses colour names that were not mapped, a bad ts and an emoji not in :name: form', () => {
    expect(
      problems({ text: 'x', emoji: 'rocket', attachments: [{ color: 'red', ts: 'yesterday' }] }),
    ).toEqual([
      'emoji: must look like :name:, got "rocket"',
      'attachments[0].color: must be good, warning, danger or a hex colour such as #3366ff, got "red"',
      'attachments[0].ts: must be an ISO-8601 date and time, got "yesterday"',
    ]);
  });

  it('gives one message that lists every problem', () => {
    const result = validateTeamChatPayload({ text: 3 });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.message).toBe(
        'invalid team-chat message: text: must be a string; (message): needs text or at least one attachment',
      );
    }
  });
});
