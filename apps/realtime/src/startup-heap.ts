import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Runs one full garbage collection, for the moment start-up is done and the port is not open yet. Loading the
 * modules and building the server allocates a lot that survives, so V8 leaves start-up with a young generation
 * sized for that burst (16 MiB of semi-spaces) and grows it again at the first burst of connections; collected
 * once here, it starts from its small size and grows only as far as the traffic needs. A collection of about
 * ten milliseconds, once per process; Node offers no call for it, so `gc` is taken from a fresh context while
 * `--expose-gc` is briefly on (and switched off again, so no later context sees it).
 */
export function collectStartupGarbage(): void {
  setFlagsFromString('--expose-gc');
  try {
    const gc = runInNewContext('typeof gc === "function" ? gc : undefined') as (() => void) | undefined;
    gc?.();
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}
