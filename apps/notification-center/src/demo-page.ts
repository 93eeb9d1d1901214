import { escapeHtml } from '@herald/notifications';

// The demo page's own look, in the bell's palette: light or dark with the system, or as the `theme` query asks;
// the bell follows. Every text keeps WCAG AA contrast in both.
const DEMO_CSS = `<style>
:root{color-scheme:light dark;--bg:#f6f7fb;--card:#fff;--text:#111827;--muted:#4b5563;--line:#e5e7eb;--accent:#4f46e5;--on-accent:#fff;--soft:#eef2ff}
html.dark{--bg:#0b1020;--card:#111827;--text:#f3f4f6;--muted:#9ca3af;--line:#273244;--accent:#818cf8;--on-accent:#0b1020;--soft:#1e1b4b;color-scheme:dark}
@media (prefers-color-scheme:dark){html:not(.light){--bg:#0b1020;--card:#111827;--text:#f3f4f6;--muted:#9ca3af;--line:#273244;--accent:#818cf8;--on-accent:#0b1020;--soft:#1e1b4b}}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--text)}
.topbar{display:flex;flex-wrap:wrap;align-items:center;gap:8px 12px;padding:8px 16px;background:var(--card);border-bottom:1px solid var(--line)}
.topbar .brand{font-weight:700;margin-right:auto}.topbar .who{color:var(--muted)}
main{max-width:760px;margin:0 auto;padding:8px 16px 48px}
h1{font-size:24px;letter-spacing:-.01em}h2{font-size:17px;margin:28px 0 10px}
.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:16px}
main form{display:flex;flex-wrap:wrap;gap:12px;align-items:end}
label{display:flex;flex-direction:column;gap:4px;font-size:13px;font-weight:600;color:var(--muted)}
input,select,button{font:inherit}
input,select{padding:7px 10px;border:1px solid var(--line);border-radius:8px;background:var(--card);color:var(--text)}
button{padding:7px 14px;border:1px solid var(--line);border-radius:8px;background:var(--card);color:var(--text);font-weight:600;cursor:pointer}
button.primary{border-color:transparent;background:var(--accent);color:var(--on-accent)}
.pill{display:inline-block;min-width:1.5em;padding:0 8px;border-radius:999px;background:var(--soft);color:var(--accent);font-weight:700;text-align:center}
#latest{margin:0;padding:0;list-style:none}#latest li{padding:10px 0;border-bottom:1px solid var(--line)}#latest li:last-child{border-bottom:0}
#latest .new{margin-right:6px;color:var(--accent);font-weight:700}#latest .msg{color:var(--muted)}
</style>`;

// A bell drawn inline, so the page needs no favicon file (and the browser's request for one never fails).
const FAVICON = `<link rel="icon" href="data:image/svg+xml,${encodeURIComponent(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#4f46e5" d="M6 16v-5a6 6 0 0 1 12 0v5l1.5 2h-15z"/><path fill="#4f46e5" d="M10 20.5a2 2 0 0 0 4 0z"/></svg>',
)}">`;

/** A whole demo page: its look, the favicon, `head` and `body`; `theme` forces light or dark. */
export function renderDemoPage(title: string, head: string, body: string, theme?: 'light' | 'dark'): string {
  // Dark through the `dark` class and light through data-theme: the bell understands both.
  const attrs =
    theme === 'dark' ? ' class="dark"' : theme === 'light' ? ' class="light" data-theme="light"' : '';
  return `<!doctype html>
<html lang="en"${attrs}><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>${FAVICON}${DEMO_CSS}${head}</head>
<body>${body}</body></html>`;
}
