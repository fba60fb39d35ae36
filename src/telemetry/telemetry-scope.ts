/**
 * The one tracer and meter of Tandem's instrumentation, both through `@opentelemetry/api` only.
 * With no SDK registered they are the API's no-ops, whose cost was measured against a
 * `diagnostics_channel` design (docs/observability.md, "Why the API and not channels").
 */

import { metrics, trace, type Meter, type Tracer, type TracerProvider } from '@opentelemetry/api';

/** The instrumentation scope's name: what a backend shows as the library of every span. */
export const TELEMETRY_SCOPE_NAME = 'tandem';
/** The scope's version: the package's (a test holds them equal). */
export const TELEMETRY_SCOPE_VERSION = '0.1.0';

let tracerOf: TracerProvider | undefined;
let tracer: Tracer | undefined;

/**
 * The tracer of the registered provider. The API's proxy tracer keeps the first SDK tracer it
 * finds, even once that SDK is shut down and another registered (`trace.disable()` makes a new
 * proxy provider), so the tracer is taken again whenever the global provider is another object.
 */
export function tandemTracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (tracer === undefined || provider !== tracerOf) {
    tracer = provider.getTracer(TELEMETRY_SCOPE_NAME, TELEMETRY_SCOPE_VERSION);
    tracerOf = provider;
  }
  return tracer;
}

/**
 * The meter of the provider registered now. Unlike tracers, meters are not proxies: one taken
 * before the application registers its SDK stays a no-op forever, so callers fetch it through
 * {@link MeterBinding}, which notices a new provider.
 */
export function tandemMeter(): Meter {
  return metrics.getMeter(TELEMETRY_SCOPE_NAME, TELEMETRY_SCOPE_VERSION);
}
