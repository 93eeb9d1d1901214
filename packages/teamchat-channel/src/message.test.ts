import { describe, expect, it } from 'vitest';
import { TeamChatAttachment } from './attachment.js';
import { TeamChatMessage } from './message.js';

describe('TeamChatMessage', () => {
  it('chains every setter and reads each value back through its getter', () => {
    const message = TeamChatMessage.create()
      .text('hi')
      .username('bot')
      .avatar('https://x.test/a.png')
      .emoji(':wave:')
      .attachment({ title: 'one' });
    expect(message.getText()).toBe('hi');
    expect(message.getUsername()).toBe('bot');
    expect(message.getAvatar()).toBe('https://x.test/a.png');
    expect(message.getEmoji()).toBe(':wave:');
    expect(message.getAttachments()).toEqual([{ title: 'one' }]);
  });

  it('leaves empty parts out of toArray()', () => {
    const message = TeamChatMessage.create('')
      .username('')
      .attachment(() => undefined);
    expect(message.toArray()).toEqual({});
    expect(TeamChatMessage.create('only text').toArray()).toEqual({ text: 'only text' });
  });

  it('takes an attachment from a callback, whether or not the callback returns the builder', () => {
    const message = TeamChatMessage.create('x')
      .attachment((a) => a.title('returned'))
      .attachment((a) => {
        a.title('not returned');
        return undefined;
      })
      .attachment(TeamChatAttachment.create().text('built'));
    expect(message.toArray().attachments).toEqual([
      { title: 'returned' },
      { title: 'not returned' },
      { text: 'built' },
    ]);
  });

  it('normalises an attachment given as an object: colour names, Date and Unix ts, empty parts', () => {
    const message = TeamChatMessage.create('x').attachment({
      color: 'warning',
      ts: 0,
      text: '',
      fields: [],
      title: 't',
    });
    expect(message.toArray().attachments).toEqual([
      { color: '#daa038', ts: '1970-01-01T00:00:00.000Z', title: 't' },
    ]);
  });

  it('serialises to the webhook body with JSON.stringify', () => {
    expect(JSON.parse(JSON.stringify(TeamChatMessage.create('hi').emoji(':x:')))).toEqual({
      text: 'hi',
      emoji: ':x:',
    });
  });
});
