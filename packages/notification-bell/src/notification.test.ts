import { describe, expect, it } from 'vitest';
import { normalizeNotification } from './notification.js';

describe('normalizeNotification', () => {
  it('reads a stored record with its icon, link and actions', () => {
    const item = normalizeNotification({
      id: 'n1',
      type: 'InvoicePaid',
      data: {
        title: 'Invoice paid',
        message: '#12',
        icon: 'check',
        action_url: '/invoices/12',
        actions: [
          { name: 'view', label: 'View', url: '/i/12', target: '_blank', color: 'success' },
          { name: 'undo', label: 'Undo', event: 'invoice:undo', disabled: true },
          { label: '' },
        ],
      },
      read_at: null,
      created_at: '2025-01-01T00:00:00.000Z',
    });
    expect(item).toMatchObject({
      id: 'n1',
      title: 'Invoice paid',
      message: '#12',
      icon: 'check',
      actionUrl: '/invoices/12',
      readAt: null,
      createdAt: '2025-01-01T00:00:00.000Z',
      local: false,
    });
    expect(item?.actions).toEqual([
      expect.objectContaining({ name: 'view', openInNewTab: true, tone: 'success', isDisabled: false }),
      expect.objectContaining({ name: 'undo', event: 'invoice:undo', isDisabled: true, tone: 'neutral' }),
    ]);
  });

  it('gives a typed notification the icon of its type, and refuses one without id or title', () => {
    expect(normalizeNotification({ id: 1, title: 'Disk full' })).toMatchObject({ id: '1', icon: 'bell' });
    expect(normalizeNotification({ id: 2, data: { title: 'Disk full', type: 'danger' } })).toMatchObject({
      icon: 'alert',
      tone: 'danger',
    });
    expect(normalizeNotification({ data: { title: 'x' } })).toBeUndefined();
    expect(normalizeNotification({ id: 'x', data: {} })).toBeUndefined();
    expect(normalizeNotification('nope')).toBeUndefined();
  });
});
