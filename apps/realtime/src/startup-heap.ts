import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// V8 grows its young generation (two semi-spaces, resident for good once touched) by this factor each time what
// survived its scavenges since the last growth passes the size of a semi-space, and never shrinks it on a collection
// of its own (a full GC included). 2 is V8's default on Node 20, 22 and 24.
const V8_SEMI_SPACE_GROWTH_FACTOR = 2;

/** Whether the process was started with its own young-generation sizing: then it is left as given. */
function sizedByOperator(): boolean {
  return [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((flag) => flag.includes('semi-space'));
}

/**
 * Holds V8's young generation at its smallest (1 MiB) while the app loads. Loading the modules and building the
 * server allocate a lot that survives (schemas, config, the server's tables), which grew it to 16 MiB before the port
 * opened; the first burst of connections then doubled it to 32 MiB, kept resident for good (1.6 KiB per socket at
 * 10 000 sockets). Held until {@link releaseYoungGeneration}, it starts serving at its smallest and grows only as
 * far as the traffic needs. The bin calls this before it imports the rest of the app.
 */
export function holdYoungGeneration(): void {
  if (!sizedByOperator()) setFlagsFromString('--semi-space-growth-factor=1');
}

/** Lets V8 grow the young generation again as it would by itself (once start-up is built). */
export function releaseYoungGeneration(): void {
  if (!sizedByOperator()) setFlagsFromString(`--semi-space-growth-factor=${V8_SEMI_SPACE_GROWTH_FACTOR}`);
}

/**
 * Runs one full garbage collection, for the moment start-up is done and the port is not open yet: what start-up
 * left behind is collected once, before any socket. A collection of tens of milliseconds, once per process; Node
 * offers no call for it, so `gc` is taken from a fresh context while `--expose-gc` is briefly on (and switched off
 * again, so no later context sees it).
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
