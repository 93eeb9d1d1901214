import { describe, expect, it } from 'vitest';
import { defaultPushDigestTemplate, defaultPushTemplate, type PushItem, payloadOf } from './push-message.js';

function item(index: number, actionUrl?: string): PushItem {
  return {
    id: `id-${index}`,
    type: 'Commented',
    title: `Comment ${index}`,
    message: `Body ${index}`,
    actionUrl,
    createdAt: new Date(2026, 0, 1, 0, index),
    data: { title: `Comment ${index}`, message: `Body ${index}` },
    count: 1,
    actors: [],
  };
}

describe('defaultPushTemplate', () => {
  it('shows the title, the message as the body, and opens the action URL', () => {
    expect(defaultPushTemplate(item(1, 'https://app.example/1'))).toEqual({
      title: 'Comment 1',
      body: 'Body 1',
      url: 'https://app.example/1',
      tag: 'id-1',
      ids: ['id-1'],
    });
  });

  it('says how many a collapsed notification stands for, under its message', () => {
    const collapsed = { ...item(2), count: 10, actors: ['Ada', 'Bo'] };
    expect(defaultPushTemplate(collapsed)).toMatchObject({
      title: 'Comment 2',
      body: 'Body 2\nAda and 9 others',
    });
    expect(defaultPushTemplate({ ...collapsed, actors: [] }).body).toBe('Body 2\n10 notifications');
  });
});

describe('defaultPushDigestTemplate', () => {
  it('counts the notifications and lists their titles, the first five then how many more', () => {
    const message = defaultPushDigestTemplate([1, 2, 3, 4, 5, 6, 7].map((index) => item(index)));
    expect(message.title).toBe('7 new notifications');
    expect(message.body).toBe('Comment 1\nComment 2\nComment 3\nComment 4\nComment 5\nand 2 more');
    expect(message.ids).toHaveLength(7);
  });

  it('opens the link the items share, and none when they differ', () => {
    const same = defaultPushDigestTemplate([item(1, 'https://a.example'), item(2, 'https://a.example')]);
    const differ = defaultPushDigestTemplate([item(1, 'https://a.example'), item(2, 'https://b.example')]);
    expect(same.url).toBe('https://a.example');
    expect(differ.url).toBeUndefined();
  });
});

describe('payloadOf', () => {
  it('keeps a small message whole', () => {
    const message = defaultPushTemplate(item(1));
    expect(JSON.parse(payloadOf(message))).toEqual(message);
  });

  it('shortens a long body to fit a push (4 KB less the encryption overhead), keeping title and link', () => {
    const message = { title: 'Long', body: 'é'.repeat(10_000), url: 'https://app.example/x', ids: ['a'] };
    const payload = payloadOf(message);
    expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(3993);
    expect(JSON.parse(payload)).toMatchObject({ title: 'Long', url: 'https://app.example/x' });
    expect((JSON.parse(payload) as { body: string }).body.endsWith('…')).toBe(true);
  });
});
