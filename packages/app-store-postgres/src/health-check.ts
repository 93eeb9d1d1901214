import type pg from 'pg';

/** Options of {@link createHealthCheck}. */
export interface HealthCheckOptions {
  readonly intervalMs: number;
  /** A check unanswered after this many ms counts as the database gone. */
  readonly timeoutMs: number;
  /** The client to check: the listening one, or undefined while nothing listens. */
  target(): pg.Client | undefined;
  /** The check failed or timed out on `client`. */
  failed(client: pg.Client, error: unknown): void;
}

/** A `SELECT 1` now and then on the listening connection. */
export interface HealthCheck {
  /** Starts checking (once; later calls do nothing). */
  start(): void;
  close(): void;
}

/**
 * Creates the health check of a watching store: a database that went silent without closing the connection (a
 * network partition) sends no error and no end, so only an unanswered query tells.
 */
export function createHealthCheck(options: HealthCheckOptions): HealthCheck {
  let interval: NodeJS.Timeout | undefined;
  let checking = false;

  function check(): void {
    const target = options.target();
    if (!target || checking) return;
    checking = true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error('PostgreSQL did not answer the health check')),
        options.timeoutMs,
      );
    });
    Promise.race([target.query('SELECT 1'), timeout])
      .then(
        () => undefined,
        (error: unknown) => options.failed(target, error),
      )
      .finally(() => {
        clearTimeout(timer);
        checking = false;
      });
  }

  return {
    start() {
      if (interval) return;
      interval = setInterval(check, options.intervalMs);
      interval.unref();
    },
    close() {
      if (interval) clearInterval(interval);
    },
  };
}
