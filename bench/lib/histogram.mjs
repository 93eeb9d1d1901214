// A fixed-size log-linear latency histogram in microseconds (about 2% resolution from 1 µs to ~100 s): cheap to
// record into on the hot path, and mergeable across load processes by adding the buckets.
const PER_LN = 50;
const SIZE = Math.ceil(Math.log(1e8) * PER_LN) + 2;

export class Histogram {
  constructor(buckets) {
    this.buckets = buckets ? Float64Array.from(buckets) : new Float64Array(SIZE);
    this.count = 0;
    for (const value of this.buckets) this.count += value;
  }

  /** Records one latency in microseconds. */
  record(micros) {
    const index = micros <= 1 ? 0 : Math.min(SIZE - 1, Math.ceil(Math.log(micros) * PER_LN));
    this.buckets[index]++;
    this.count++;
  }

  merge(other) {
    const buckets = other instanceof Histogram ? other.buckets : other;
    for (let i = 0; i < SIZE; i++) this.buckets[i] += buckets[i] ?? 0;
    this.count = 0;
    for (const value of this.buckets) this.count += value;
  }

  /** The latency at quantile q (0..1) in milliseconds, or null without samples. */
  quantileMs(q) {
    if (this.count === 0) return null;
    const rank = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (let i = 0; i < SIZE; i++) {
      seen += this.buckets[i];
      if (seen >= rank) return Math.round(Math.exp(i / PER_LN) / 10) / 100;
    }
    return null;
  }

  summary() {
    return { p50: this.quantileMs(0.5), p95: this.quantileMs(0.95), p99: this.quantileMs(0.99) };
  }

  toJSON() {
    return Array.from(this.buckets);
  }
}

/** Microseconds on the system-wide monotonic clock, comparable between processes on this machine. */
export function nowMicros() {
  const [seconds, nanos] = process.hrtime();
  return seconds * 1e6 + Math.floor(nanos / 1000);
}
