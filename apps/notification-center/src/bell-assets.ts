import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built bell (`notification-bell.js` and `.css`) of the installed `@herald/notification-bell`, if built. */
export function installedBellAssets(): string | undefined {
  try {
    const script = fileURLToPath(import.meta.resolve('@herald/notification-bell/standalone'));
    return existsSync(script) ? dirname(script) : undefined;
  } catch {
    // Not installed, or not built yet: the page then runs without the widget, as the README says.
    return undefined;
  }
}
