/**
 * The OTLP/HTTP exporters of each signal, in the encoding the environment asks for; each is
 * imported only when chosen. They read the rest of their configuration from the standard
 * variables themselves (headers, timeout, compression, certificates, per-signal endpoints).
 */

import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { OtlpSignalExport } from './otel-environment.js';

function configOf(signal: OtlpSignalExport): { url?: string } {
  return signal.url === undefined ? {} : { url: signal.url };
}

/** The span exporter of `signal`. */
export async function createSpanExporter(signal: OtlpSignalExport): Promise<SpanExporter> {
  if (signal.protocol === 'http/json') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter(configOf(signal));
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter(configOf(signal));
}

/** The metric exporter of `signal`. */
export async function createMetricExporter(signal: OtlpSignalExport): Promise<PushMetricExporter> {
  if (signal.protocol === 'http/json') {
    const { OTLPMetricExporter } = await import('@opentelemetry/exporter-metrics-otlp-http');
    return new OTLPMetricExporter(configOf(signal));
  }
  const { OTLPMetricExporter } = await import('@opentelemetry/exporter-metrics-otlp-proto');
  return new OTLPMetricExporter(configOf(signal));
}
