import { describe, expect, it } from 'vitest';
import { parseNotificationData } from './notification-data.js';

describe('parseNotificationData', () => {
  it('accepts title and message with every optional key, and keeps extra keys', () => {
    const result = parseNotificationData({
      title: 'Invoice paid',
      message: 'Invoice #12 was paid',
      action_url: '/invoices/12',
      icon: 'check',
      icon_class: 'fa fa-check',
      actions: [
        { name: 'open', label: 'Open', url: '/invoices/12', openInNewTab: true, color: 'success' },
        { name: 'ack', label: 'Acknowledge', event: 'invoice:ack', shouldClose: true, isDisabled: false },
      ],
      invoice_id: 12,
    });
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.value.invoice_id).toBe(12);
  });

  it('names every missing or wrong key', () => {
    const result = parseNotificationData({ message: '', icon: 'rocket', actions: [{ name: 'x' }] });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const keys = result.error.issues.map((issue) => issue.split(':')[0]);
    expect(keys).toEqual(expect.arrayContaining(['title', 'message', 'icon', 'actions.0.label']));
    expect(result.error.message).toMatch(/^invalid notification data: /);
  });

  it('refuses something that is not an object', () => {
    const result = parseNotificationData('hello');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.issues[0]).toMatch(/^\(root\)/);
  });
});
