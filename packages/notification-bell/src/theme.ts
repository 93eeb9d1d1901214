/** The theme the bell paints with. */
export type BellTheme = 'light' | 'dark';

/**
 * Finds the page's theme for an element: the nearest `data-theme` above it (the `<html>` one included), then a
 * `dark` class on `<html>`, then the system's `prefers-color-scheme`.
 */
export function detectTheme(el: Element): BellTheme {
  const marked = el.parentElement?.closest('[data-theme]')?.getAttribute('data-theme');
  if (marked === 'dark' || marked === 'light') return marked;
  const root = el.ownerDocument.documentElement;
  if (root.classList.contains('dark')) return 'dark';
  const view = el.ownerDocument.defaultView;
  return view?.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** Calls `onChange` whenever the page's theme for `el` may have changed; returns the function that stops it. */
export function watchTheme(el: Element, onChange: (theme: BellTheme) => void): () => void {
  const doc = el.ownerDocument;
  const update = () => onChange(detectTheme(el));
  const observer = new MutationObserver((records) => {
    // Our own data-theme is an output, not an input.
    if (records.some((record) => !el.contains(record.target))) update();
  });
  observer.observe(doc.documentElement, {
    attributes: true,
    attributeFilter: ['data-theme', 'class'],
    subtree: true,
  });
  const media = doc.defaultView?.matchMedia?.('(prefers-color-scheme: dark)');
  media?.addEventListener('change', update);
  return () => {
    observer.disconnect();
    media?.removeEventListener('change', update);
  };
}
