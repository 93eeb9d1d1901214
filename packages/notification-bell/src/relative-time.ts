const UNITS: ReadonlyArray<readonly [Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

const formatters = new Map<string, Intl.RelativeTimeFormat>();

/**
 * Says how long ago (or how far ahead) a time is in the given language, e.g. "5 minutes ago", "vor 5 Minuten",
 * "yesterday"; under 45 seconds it is the language's "now".
 */
export function formatRelativeTime(when: string | Date, now: Date = new Date(), locale?: string): string {
  const date = typeof when === 'string' ? new Date(when) : when;
  if (Number.isNaN(date.getTime())) return '';
  const key = locale ?? '';
  let formatter = formatters.get(key);
  if (!formatter) {
    formatter = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
    formatters.set(key, formatter);
  }
  const seconds = Math.round((date.getTime() - now.getTime()) / 1000);
  if (Math.abs(seconds) < 45) return formatter.format(0, 'second');
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size || unit === 'second') {
      // Half away from zero both ways: 90 minutes ago reads "2 hours ago" as 90 minutes ahead reads "in 2 hours"
      // (Math.round alone rounds -1.5 up to -1).
      const amount = Math.sign(seconds) * Math.round(Math.abs(seconds) / size);
      return formatter.format(amount, unit);
    }
  }
  return '';
}

/** The page's language: the `lang` of `<html>`, then the browser's, then English. */
export function pageLocale(doc: Document | undefined = globalThis.document): string {
  const lang = doc?.documentElement.lang;
  if (lang) return lang;
  return globalThis.navigator?.language ?? 'en';
}
