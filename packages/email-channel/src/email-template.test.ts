import { describe, expect, it } from 'vitest';
import { defaultDigestTemplate, defaultEmailTemplate, type EmailItem } from './email-template.js';

const item = (title: string, actionUrl?: string): EmailItem => ({
  id: title,
  type: 'CommentReplied',
  title,
  message: `About ${title}`,
  actionUrl,
  createdAt: new Date(0),
  data: { title, message: `About ${title}` },
  count: 1,
  actors: [],
});

describe('defaultEmailTemplate', () => {
  it('escapes the title and message in the HTML part and keeps them plain in the text part', () => {
    const rendered = defaultEmailTemplate(item('<script>', 'https://app.example/?a=1&b=2'));
    expect(rendered.subject).toBe('<script>');
    expect(rendered.html).toContain('<a href="https://app.example/?a=1&amp;b=2">&lt;script&gt;</a>');
    expect(rendered.html).not.toContain('<script>');
    expect(rendered.text).toBe('<script>\nAbout <script>\nhttps://app.example/?a=1&b=2\n');
  });

  it('says how many a collapsed notification stands for, under its title', () => {
    const rendered = defaultEmailTemplate({ ...item('Comments on <b>'), count: 3, actors: ['Ada <3'] });
    expect(rendered.text).toBe('Comments on <b>\nAda <3 and 2 others\nAbout Comments on <b>\n');
    expect(rendered.html).toContain('Ada &lt;3 and 2 others</p>');
  });
});

describe('defaultDigestTemplate', () => {
  it('counts the items in the subject and lists each one', () => {
    const rendered = defaultDigestTemplate([item('One'), item('Two'), item('Three')]);
    expect(rendered.subject).toBe('3 new notifications');
    expect(rendered.text).toBe(
      '3 new notifications\n\nOne\nAbout One\n\nTwo\nAbout Two\n\nThree\nAbout Three\n',
    );
    expect(rendered.html).toContain('<h2 style="font-size:16px;margin:0 0 4px">Two</h2>');
  });
});
