/**
 * What the standard OpenTelemetry environment variables ask of the preset, read once and
 * checked, so that a mistake fails at start with the variable's name rather than as a silent
 * absence of telemetry. The exporters read their own variables as well (headers, timeouts,
 * certificates, per-signal endpoints); this module decides which exporters exist at all.
 */

import { ConfigurationError } from '../protocol/local-errors.js';

/** The OTLP/HTTP encodings the preset exports in. */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** One signal's OTLP export, or none. */
export interface OtlpSignalExport {
  readonly protocol: OtlpProtocol;
  /** The signal's URL when the caller gave an endpoint (the flag); else the exporter reads the env. */
  readonly url?: string | undefined;
}

/** What the environment (and the caller's endpoint) settle. */
export interface OtelEnvironment {
  readonly traces: OtlpSignalExport | undefined;
  readonly metrics: OtlpSignalExport | undefined;
  /** `OTEL_METRIC_EXPORT_INTERVAL`, ms (default 60 000). */
  readonly metricExportIntervalMs: number;
  /** `OTEL_SDK_DISABLED=true`: nothing is started. */
  readonly disabled: boolean;
}

type Env = Readonly<Record<string, string | undefined>>;

function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function protocolOf(env: Env, signal: 'TRACES' | 'METRICS'): OtlpProtocol {
  const name = read(env, `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`)
    ? `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const value = read(env, name) ?? 'http/protobuf';
  if (value === 'http/protobuf' || value === 'http/json') return value;
  throw new ConfigurationError(
    `${name}=${value} is not supported: use http/protobuf (the default) or http/json` +
      (value === 'grpc' ? '; Tandem exports OTLP over HTTP only' : ''),
  );
}

/** The exporters a signal's `OTEL_<SIGNAL>_EXPORTER` names: `otlp` (default) or `none`. */
function exporterWanted(env: Env, variable: string): boolean {
  const value = read(env, variable);
  if (value === undefined) return true;
  const names = value.split(',').map((name) => name.trim());
  for (const name of names) {
    if (name !== 'otlp' && name !== 'none' && name !== 'prometheus') {
      throw new ConfigurationError(
        `${variable}=${value} names an exporter Tandem does not have (${name}): use otlp or none` +
          (variable === 'OTEL_METRICS_EXPORTER' ? ', or serve Prometheus with --metrics' : ''),
      );
    }
  }
  return names.includes('otlp');
}

function signalExport(
  env: Env,
  signal: 'TRACES' | 'METRICS',
  endpoint: string | undefined,
): OtlpSignalExport | undefined {
  if (!exporterWanted(env, `OTEL_${signal}_EXPORTER`)) return undefined;
  const protocol = protocolOf(env, signal);
  const path = signal === 'TRACES' ? 'v1/traces' : 'v1/metrics';
  if (endpoint !== undefined) {
    return { protocol, url: `${endpoint.replace(/\/+$/, '')}/${path}` };
  }
  const configured =
    read(env, `OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`) ?? read(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (configured === undefined) return undefined;
  if (!URL.canParse(configured)) {
    throw new ConfigurationError(
      `The OTLP endpoint ${configured} is not a URL: give one like http://collector:4318`,
    );
  }
  return { protocol };
}

/**
 * Reads the environment. `endpoint` (the `--otlp-endpoint` flag) stands for
 * `OTEL_EXPORTER_OTLP_ENDPOINT` and wins over the per-signal endpoints.
 */
export function readOtelEnvironment(env: Env, endpoint?: string): OtelEnvironment {
  if (endpoint !== undefined && !URL.canParse(endpoint)) {
    throw new ConfigurationError(
      `The OTLP endpoint ${endpoint} is not a URL: give one like http://collector:4318`,
    );
  }
  const interval = read(env, 'OTEL_METRIC_EXPORT_INTERVAL');
  const metricExportIntervalMs = interval === undefined ? 60_000 : Number(interval);
  if (!Number.isSafeInteger(metricExportIntervalMs) || metricExportIntervalMs <= 0) {
    throw new ConfigurationError(
      `OTEL_METRIC_EXPORT_INTERVAL=${interval} must be a whole number of milliseconds above 0`,
    );
  }
  return {
    disabled: read(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true',
    traces: signalExport(env, 'TRACES', endpoint),
    metrics: signalExport(env, 'METRICS', endpoint),
    metricExportIntervalMs,
  };
}
