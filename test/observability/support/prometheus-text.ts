/**
 * Prometheus text read with a real parser from npm (prom2javascript), not a regex: families by
 * name, each with its type and samples (a histogram's per label set, with buckets, count, sum).
 */

import { getMetricsFromIterator, type PromMetrics } from 'prom2javascript';

export type { PromHistogramData, PromMetrics } from 'prom2javascript';

/** Parses an exposition; a malformed one rejects. */
export function parsePrometheusText(text: string): Promise<PromMetrics> {
  return getMetricsFromIterator(text.split('\n')[Symbol.iterator]());
}
