import type { BellIconName } from './notification.js';

// 24×24 stroke icons drawn for this widget; `currentColor` so themes colour them.
const svg = (body: string) =>
  `<svg viewBox="0 0 24 24" width="20" height="20" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">${body}</svg>`;

/** The built-in item icons, as inline SVG. */
export const ICONS: Record<BellIconName, string> = {
  bell: svg('<path d="M6 16V11a6 6 0 0 1 12 0v5l1.5 2h-15z"/><path d="M10 20.5a2 2 0 0 0 4 0"/>'),
  post: svg('<rect x="4" y="3.5" width="16" height="17" rx="2"/><path d="M8 8h8M8 12h8M8 16h5"/>'),
  user: svg('<circle cx="12" cy="8.5" r="3.8"/><path d="M4.5 20a7.5 7.5 0 0 1 15 0"/>'),
  message: svg('<path d="M4 5.5h16v10.5H9.5L5 20v-4H4z"/>'),
  alert: svg('<path d="M12 3.5 21.5 20h-19z"/><path d="M12 10v4.5M12 17.3v.2"/>'),
  check: svg('<circle cx="12" cy="12" r="8.5"/><path d="m8.2 12.3 2.6 2.6 5-5.3"/>'),
  info: svg('<circle cx="12" cy="12" r="8.5"/><path d="M12 11v5.5M12 7.7v.2"/>'),
};

/** The tools' icons: the bell button, close, mark read, delete. */
export const TOOL_ICONS = {
  bell: svg('<path d="M6 16V11a6 6 0 0 1 12 0v5l1.5 2h-15z"/><path d="M10 20.5a2 2 0 0 0 4 0"/>').replace(
    'width="20" height="20"',
    'width="22" height="22"',
  ),
  close: svg('<path d="M6 6l12 12M18 6 6 18"/>'),
  read: svg('<path d="m5 12.5 4.5 4.5L19 7.5"/>'),
  delete: svg('<path d="M4.5 7h15M10 7V4.5h4V7M6.5 7l1 13h9l1-13"/>'),
  readAll: svg('<path d="m2.5 12.5 4.5 4.5 9.5-9.5M12 16.5l.5.5L22 7.5"/>'),
  archive: svg('<path d="M4 5h16v4H4zM5.5 9v10h13V9M10 13h4"/>'),
  unarchive: svg('<path d="M4 5h16v4H4zM5.5 9v10h13V9M12 17v-5M9.5 14.5 12 12l2.5 2.5"/>'),
  snooze: svg('<circle cx="12" cy="13" r="7.5"/><path d="M12 9v4l2.5 2.5M5 3.5 2.5 6M19 3.5 21.5 6"/>'),
} as const;
