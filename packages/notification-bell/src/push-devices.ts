/** One device (browser) with browser notifications on, as the bell lists it. */
export interface BellPushDevice {
  /** The push service URL the server keeps for it: what removing it names. */
  readonly endpoint: string;
  /** Its label, else its browser and system from the user agent it was saved with. */
  readonly name: string;
  /** True for the browser the page is open in. */
  readonly current: boolean;
}

// Tried in order: Edge and Opera say "Chrome" too, Chrome says "Safari" too.
const BROWSERS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bEdg(e|A|iOS)?\//, 'Edge'],
  [/\bOPR\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\b(Firefox|FxiOS)\//, 'Firefox'],
  // No \b: headless Chromium says `HeadlessChrome/`.
  [/(Chrome|CriOS|Chromium)\//, 'Chrome'],
  [/\bSafari\//, 'Safari'],
];
const SYSTEMS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bAndroid\b/, 'Android'],
  [/\b(iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bLinux\b/, 'Linux'],
];

const firstMatch = (text: string, table: ReadonlyArray<readonly [RegExp, string]>) =>
  table.find(([pattern]) => pattern.test(text))?.[1];

/**
 * A device's name for the list: the label it was saved with, else "Browser · System" read from its user agent
 * (names of products, the same in every language), else `unknown`.
 */
export function pushDeviceName(
  saved: { readonly label?: string | null; readonly user_agent?: string | null },
  unknown: string,
): string {
  if (saved.label) return saved.label;
  const agent = saved.user_agent ?? '';
  const browser = firstMatch(agent, BROWSERS);
  const system = firstMatch(agent, SYSTEMS);
  if (!browser) return system ? `${unknown} · ${system}` : unknown;
  return system ? `${browser} · ${system}` : browser;
}
