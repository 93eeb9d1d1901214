import { describe, expect, it } from 'vitest';
import { createUnsubscribeLinks } from './unsubscribe.js';

describe('createUnsubscribeLinks', () => {
  const links = createUnsubscribeLinks({
    secret: 'unsubscribe-test-secret',
    baseUrl: 'https://notify.example/base',
  });

  it('points under the base URL and names the recipient, types and channel', () => {
    const url = new URL(links.url({ type: 'User', id: '42' }, ['CommentReplied', 'InvoicePaid'], 'email'));
    expect(url.origin + url.pathname).toBe('https://notify.example/base/notification/unsubscribe');
    expect(url.searchParams.get('nt')).toBe('User');
    expect(url.searchParams.get('id')).toBe('42');
    expect(url.searchParams.getAll('type')).toEqual(['CommentReplied', 'InvoicePaid']);
    expect(url.searchParams.get('ch')).toBe('email');
    expect(url.searchParams.get('sig')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('signs each recipient differently', () => {
    const sig = (id: string) =>
      new URL(links.url({ type: 'User', id }, ['T'], 'email')).searchParams.get('sig');
    expect(sig('42')).not.toBe(sig('43'));
  });

  it('refuses a short secret and a base that is not a URL', () => {
    expect(() => createUnsubscribeLinks({ secret: 'short', baseUrl: 'https://x.example' })).toThrow(
      /16 characters/,
    );
    expect(() => createUnsubscribeLinks({ secret: 'long-enough-secret-0123', baseUrl: 'not a url' })).toThrow(
      /baseUrl/,
    );
  });
});
