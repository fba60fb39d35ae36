/** Small order statistics shared by the scenarios and the report. */

/** The q-quantile (0 ≤ q ≤ 1) of ascending values, by the nearest-rank method; NaN when empty. */
function quantileOfSorted(sorted, q) {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

/** The median, averaging the two middle values of an even count; NaN when empty. */
export function median(values) {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return Number.NaN;
  const sorted = finite.sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * A growable array of latencies in milliseconds. Scenarios record every sample rather than a
 * bucketed histogram: runs are seconds long, so even 100k samples/s cost a few MB, and exact
 * percentiles avoid autocannon's whole-millisecond histogram, which reads 0 or 1 ms on loopback.
 */
export class Samples {
  #values = new Float64Array(1024);
  #count = 0;

  add(value) {
    if (this.#count === this.#values.length) {
      const grown = new Float64Array(this.#values.length * 2);
      grown.set(this.#values);
      this.#values = grown;
    }
    this.#values[this.#count++] = value;
  }

  get count() {
    return this.#count;
  }

  /** The quantiles `qs` of what was recorded (NaN when nothing was), sorting once. */
  quantiles(...qs) {
    const sorted = this.#values.slice(0, this.#count).sort();
    return qs.map((q) => quantileOfSorted(sorted, q));
  }
}
