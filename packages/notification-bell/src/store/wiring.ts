import type { BellStoreDeps } from '../bell-store.js';
import { UNREACHABLE } from '../client.js';
import { isBellError } from '../errors.js';
import type { BellLabels } from '../options.js';
import { DEFAULT_LABELS } from '../options.js';

/** What a store is wired to once a bell configures it: the client, the labels, the window events. */
export interface StoreWiring {
  configure(deps: BellStoreDeps): void;
  /** Has a bell configured the store yet. */
  readonly configured: boolean;
  /** @throws {Error} before a bell configured the store. */
  need(): BellStoreDeps;
  /** The labels in the bell's language (the defaults before it is configured). */
  labels(): BellLabels;
  /** How long a new item stays highlighted. */
  highlightMs(): number;
  /** Dispatches a window event (the configured `emit`, else a CustomEvent on the window). */
  emit(name: string, detail: unknown): void;
  /** Tells the page's other tabs of a change made here (nothing when no bell gave a way to). */
  share(event: string, payload: unknown): void;
  /** A failure in words fit for the user. */
  describe(error: unknown): string;
}

function defaultEmit(name: string, detail: unknown): void {
  globalThis.dispatchEvent?.(new CustomEvent(name, { detail }));
}

/** A failure in words fit for the user, in the bell's language when the request said what failed. */
function messageOf(error: unknown, labels: BellLabels): string {
  if (isBellError(error) && error.operation) {
    const unreachable = error.detail === UNREACHABLE;
    return labels.failed(error.operation, unreachable ? labels.unreachable : (error.detail ?? ''));
  }
  if (isBellError(error)) return error.message;
  return error instanceof Error ? `Something went wrong: ${error.message}` : 'Something went wrong.';
}

/** Holds what a bell configured the store with, until another bell configures it again. */
export function createStoreWiring(): StoreWiring {
  let deps: BellStoreDeps | undefined;
  const need = (): BellStoreDeps => {
    if (!deps) throw new Error('the notifications store is used before a bell configured it');
    return deps;
  };
  return {
    configure(next) {
      deps = next;
    },
    get configured() {
      return deps !== undefined;
    },
    need,
    labels: () => deps?.labels ?? DEFAULT_LABELS,
    highlightMs: () => deps?.highlightMs ?? 5000,
    emit: (name, detail) => (deps?.emit ?? defaultEmit)(name, detail),
    share: (event, payload) => deps?.share?.(event, payload),
    describe: (error) => messageOf(error, need().labels),
  };
}
