/**
 * `tandem/otel`: the OpenTelemetry SDK preset — OTLP/HTTP export of traces and metrics
 * (protobuf or JSON), Prometheus text, runtime metrics — configured by the standard `OTEL_*`
 * environment variables. Its packages are optional dependencies of `tandem`; Tandem's
 * instrumentation itself needs only `@opentelemetry/api` (docs/observability.md).
 *
 * Any new export added here becomes public API. Use named exports, not wildcards.
 */

export { startTelemetry } from './otel/start-telemetry.js';
export type { Telemetry, TelemetryOptions } from './otel/start-telemetry.js';
export { PROMETHEUS_CONTENT_TYPE } from './otel/prometheus-endpoint.js';
export {
  INSTRUMENTS,
  OPERATION_DURATION_BUCKETS,
  type InstrumentDefinition,
  type InstrumentKind,
} from './telemetry/instrument-catalogue.js';
