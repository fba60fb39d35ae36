/**
 * The standard OTLP → Prometheus name mapping (OpenTelemetry's "Prometheus and OpenMetrics
 * compatibility"): the unit becomes a suffix (`s` → `_seconds`, `By` → `_bytes`, `1` on a gauge
 * → `_ratio`, `{annotations}` dropped, `a/b` → `a_per_b`), and the exporter then replaces what
 * Prometheus does not allow with `_` and adds `_total` to counters. The JS Prometheus exporter
 * leaves the unit out, so an OTLP pipeline into Prometheus and a scrape of `/metrics` would name
 * the same instrument twice; applying this mapping before the exporter serializes makes them one.
 */

import { DataPointType, type MetricData, type ResourceMetrics } from '@opentelemetry/sdk-metrics';

const UNIT_WORDS: Readonly<Record<string, string>> = {
  d: 'days',
  h: 'hours',
  min: 'minutes',
  s: 'seconds',
  ms: 'milliseconds',
  us: 'microseconds',
  ns: 'nanoseconds',
  By: 'bytes',
  KiBy: 'kibibytes',
  MiBy: 'mebibytes',
  GiBy: 'gibibytes',
  TiBy: 'tibibytes',
  KBy: 'kilobytes',
  MBy: 'megabytes',
  GBy: 'gigabytes',
  TBy: 'terabytes',
  m: 'meters',
  V: 'volts',
  A: 'amperes',
  J: 'joules',
  W: 'watts',
  g: 'grams',
  Cel: 'celsius',
  Hz: 'hertz',
  '%': 'percent',
};

const PER_UNIT_WORDS: Readonly<Record<string, string>> = {
  s: 'second',
  m: 'minute',
  h: 'hour',
  d: 'day',
  w: 'week',
  mo: 'month',
  y: 'year',
};

/** The suffix a unit adds to a name (`seconds`, `bytes_per_second`); `''` for none. */
export function unitSuffixOf(unit: string, isGauge: boolean): string {
  const bare = unit.replace(/\{[^}]*\}/g, '').trim();
  if (bare === '') return '';
  if (bare === '1') return isGauge ? 'ratio' : '';
  const slash = bare.indexOf('/');
  if (slash === -1) return UNIT_WORDS[bare] ?? bare;
  const top = bare.slice(0, slash);
  const bottom = bare.slice(slash + 1);
  const topWord = top === '' ? '' : (UNIT_WORDS[top] ?? top);
  const bottomWord = PER_UNIT_WORDS[bottom] ?? UNIT_WORDS[bottom] ?? bottom;
  return topWord === '' ? `per_${bottomWord}` : `${topWord}_per_${bottomWord}`;
}

/** The name with its unit's suffix, unless it ends with it already. */
export function nameWithUnit(name: string, unit: string, isGauge: boolean): string {
  const suffix = unitSuffixOf(unit, isGauge);
  if (suffix === '') return name;
  const normalized = name.replace(/[^a-zA-Z0-9_:]/g, '_');
  return normalized.endsWith(`_${suffix}`) ? name : `${name}_${suffix}`;
}

function renamed(metric: MetricData): MetricData {
  const { descriptor } = metric;
  const isGauge = metric.dataPointType === DataPointType.GAUGE;
  const name = nameWithUnit(descriptor.name, descriptor.unit, isGauge);
  return name === descriptor.name ? metric : { ...metric, descriptor: { ...descriptor, name } };
}

/** The collected metrics under their Prometheus names (before the exporter's sanitizing). */
export function withUnitSuffixes(resourceMetrics: ResourceMetrics): ResourceMetrics {
  return {
    resource: resourceMetrics.resource,
    scopeMetrics: resourceMetrics.scopeMetrics.map((scope) => ({
      ...scope,
      metrics: scope.metrics.map(renamed),
    })),
  };
}
