import { describe, expect, it } from 'vitest';
import { resolveBellOptions } from './options.js';
import { BELL_STRINGS, bellLabels, stringsFor } from './strings.js';

describe('bellLabels', () => {
  it('speaks English by default, and German and French as shipped', () => {
    expect(bellLabels('en').unread(3)).toBe('3 unread');
    expect(bellLabels('de-AT').title).toBe('Benachrichtigungen');
    expect(bellLabels('de').unread(1200)).toBe('1.200 ungelesen');
    expect(bellLabels('fr').unread(1)).toBe('1 non lue');
    expect(bellLabels('fr').unread(2)).toBe('2 non lues');
    expect(bellLabels('fr').received('Salut')).toBe('Nouvelle notification : Salut');
  });

  it('falls back to English for a language not shipped, and takes overrides over the table', () => {
    expect(stringsFor('ja-JP')).toBe(BELL_STRINGS.en);
    const labels = bellLabels('de', {
      tabAll: 'Sämtliche',
      unread: { one: 'eine neue', other: '{count} neue' },
    });
    expect([labels.tabAll, labels.tabUnread, labels.unread(1), labels.unread(4)]).toEqual([
      'Sämtliche',
      'Ungelesen',
      'eine neue',
      '4 neue',
    ]);
  });

  it('ships every key in every language', () => {
    const keys = Object.keys(BELL_STRINGS.en).sort();
    for (const table of Object.values(BELL_STRINGS)) expect(Object.keys(table).sort()).toEqual(keys);
  });
});

describe('the bell’s language', () => {
  it('comes from the locale option, else the page, with strings and labels on top', () => {
    expect(resolveBellOptions({}, 'de-DE').labels.markAllRead).toBe('Alle als gelesen markieren');
    const options = resolveBellOptions({ locale: 'fr', strings: { title: 'Alertes' } }, 'de');
    expect([options.locale, options.labels.title, options.labels.close]).toEqual(['fr', 'Alertes', 'Fermer']);
    expect(resolveBellOptions({ labels: { unread: (n) => `${n}!` } }).labels.unread(2)).toBe('2!');
  });
});
