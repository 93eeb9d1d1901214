import { describe, expect, it } from 'vitest';
import { redactTree, redactUrl, redactValue } from './redact.js';

describe('redactValue', () => {
  it('hides values whose key names a secret', () => {
    expect(redactValue('API_SECRET', 'abc')).toBe('[redacted]');
    expect(redactValue('DB_PASSWORD', 'abc')).toBe('[redacted]');
    expect(redactValue('MAIL_FROM', 'team@example.com')).toBe('team@example.com');
  });

  it('hides values shaped like secrets under any key', () => {
    expect(redactValue('NOTE', 'sk_live_abcdefghijkl')).toBe('[redacted]');
    expect(redactValue('X', '-----BEGIN RSA PRIVATE KEY-----\nMII')).toBe('[redacted]');
  });

  it('keeps a URL readable but masks its password', () => {
    expect(redactUrl('postgres://app:hunter2@db:5432/main')).toBe('postgres://app:***@db:5432/main');
    expect(redactValue('DATABASE_URL', 'mysql://root@db/main')).toBe('mysql://root@db/main');
  });

  it('walks nested config', () => {
    expect(redactTree({ mail: { token: 't0k', host: 'smtp' }, list: ['x'] })).toEqual({
      mail: { token: '[redacted]', host: 'smtp' },
      list: ['x'],
    });
  });
});
