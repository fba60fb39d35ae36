/**
 * Telemetry of `tandem serve` (docs/observability.md): traces and metrics over OTLP/HTTP with
 * `--otlp-endpoint` or the standard `OTEL_EXPORTER_OTLP_*ENDPOINT` variables, Prometheus text at
 * `GET /metrics` on the main port with `--metrics`, or on a listener of its own with
 * `--metrics-port` (which carries no A2A traffic). Every other `OTEL_*` variable configures the
 * `tandem/otel` preset as usual; `service.name` defaults to `tandem`, or to the agent's name when
 * one agent is served. Without any of them the preset is not even loaded.
 */

import { parseNonNegativeInteger, UsageFailure } from '../cli-values.js';
import type { ServeOptionGroup } from './option-group.js';

/** The `parseArgs` options this module reads. */
export const TELEMETRY_OPTIONS = {
  'otlp-endpoint': { type: 'string' },
  metrics: { type: 'boolean' },
  'metrics-port': { type: 'string' },
  'untrusted-traceparent': { type: 'boolean' },
} as const;

/** The help lines of {@link TELEMETRY_OPTIONS}. */
export const TELEMETRY_HELP = `Telemetry (OpenTelemetry; the standard OTEL_* variables apply):
  --otlp-endpoint <url>   Export traces and metrics over OTLP/HTTP, e.g. http://collector:4318
                          (env OTEL_EXPORTER_OTLP_ENDPOINT; OTEL_EXPORTER_OTLP_PROTOCOL=http/json
                          for JSON, http/protobuf by default)
  --metrics               Serve Prometheus text at GET /metrics on the main port
  --metrics-port <n>      Serve GET /metrics on a port of its own instead (no A2A traffic there)
  --untrusted-traceparent Start a new trace for each call, linked to the caller's traceparent
                          rather than continuing it (for a server at the edge)`;

type Values = {
  readonly 'otlp-endpoint'?: string | undefined;
  readonly metrics?: boolean | undefined;
  readonly 'metrics-port'?: string | undefined;
  readonly 'untrusted-traceparent'?: boolean | undefined;
};

/** What the flags ask for. */
export interface ServeTelemetry {
  readonly otlpEndpoint: string | undefined;
  /** `GET /metrics` on the main port. */
  readonly metricsOnMainPort: boolean;
  /** The port of a listener of its own for `GET /metrics`. */
  readonly metricsPort: number | undefined;
  /** Whether a caller's `traceparent` may be the parent of its call's span. */
  readonly trustInboundContext: boolean;
}

const ENDPOINT_VARIABLES = [
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
];

/** @throws UsageFailure for an endpoint that is not a URL or a port out of range. */
export function parseServeTelemetry(values: Values): ServeTelemetry {
  const endpoint = values['otlp-endpoint'];
  if (endpoint !== undefined && !/^https?:\/\/[^\s]+$/.test(endpoint)) {
    throw new UsageFailure(
      `--otlp-endpoint must be an http(s) URL such as http://collector:4318, got "${endpoint}"`,
    );
  }
  const port = values['metrics-port'];
  const metricsPort =
    port === undefined ? undefined : parseNonNegativeInteger(port, '--metrics-port');
  if (metricsPort !== undefined && metricsPort > 65535) {
    throw new UsageFailure(`--metrics-port must be a port from 0 to 65535, got ${port}`);
  }
  return {
    otlpEndpoint: endpoint,
    metricsOnMainPort: values.metrics === true,
    metricsPort,
    trustInboundContext: values['untrusted-traceparent'] !== true,
  };
}

/** The running telemetry of `tandem serve`. */
export interface ServingTelemetry {
  /** The renderer of `GET /metrics` on the main port, when asked for. */
  readonly metrics: (() => Promise<string>) | undefined;
  /** The port of the metrics listener of its own, when there is one. */
  readonly metricsPort: number | undefined;
  /** Exports what is pending and stops; after the server has stopped. */
  shutdown(): Promise<void>;
}

const NONE: ServingTelemetry = {
  metrics: undefined,
  metricsPort: undefined,
  shutdown: () => Promise.resolve(),
};

/**
 * Starts the preset when the flags or the environment ask for telemetry, before the server is
 * made (so that its first call is traced).
 */
export async function startServeTelemetry(
  options: ServeTelemetry,
  served: { readonly agents: readonly string[]; readonly host: string },
): Promise<ServingTelemetry> {
  const fromEnv = ENDPOINT_VARIABLES.some((name) => (process.env[name] ?? '').trim() !== '');
  const prometheus = options.metricsOnMainPort || options.metricsPort !== undefined;
  if (!fromEnv && !prometheus && options.otlpEndpoint === undefined) return NONE;
  const { startTelemetry } = await import('../../otel.js');
  const telemetry = await startTelemetry({
    serviceName: served.agents.length === 1 ? served.agents[0] : 'tandem',
    otlpEndpoint: options.otlpEndpoint,
    prometheus:
      options.metricsPort !== undefined
        ? { port: options.metricsPort, host: served.host }
        : options.metricsOnMainPort,
  });
  return {
    metrics: options.metricsOnMainPort ? telemetry.metricsText : undefined,
    metricsPort: telemetry.metricsPort,
    shutdown: () => telemetry.shutdown(),
  };
}

/** The telemetry flags. */
export const TELEMETRY_GROUP = {
  options: TELEMETRY_OPTIONS,
  help: TELEMETRY_HELP,
  parse: parseServeTelemetry,
} satisfies ServeOptionGroup<Values, ServeTelemetry>;
