import type { BellOptionsInput } from '../options.js';

// Options given in code to mountNotificationBells (a token function cannot travel in data-options JSON), kept
// per bell element until its component reads them.
const given = new WeakMap<Element, BellOptionsInput>();

/** Remembers the options code gave for a bell element. */
export function rememberHostOptions(host: Element, options: BellOptionsInput): void {
  given.set(host, options);
}

/** The options code gave for a bell element, if any. */
export function hostOptionsOf(host: Element): BellOptionsInput | undefined {
  return given.get(host);
}
