/** Counts an app wires into its metrics (e.g. Prometheus): outages, recoveries and rows skipped. */
export interface AppStoreMetrics {
  /** PostgreSQL became unreachable while watching (once per outage). */
  outage(): void;
  /** PostgreSQL answers again and every app was re-read. */
  restored(): void;
  /** Rows skipped at the last full read because a column holds a value the app cannot use. */
  skippedRows(count: number): void;
}
