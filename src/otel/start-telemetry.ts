/**
 * `startTelemetry`: the OpenTelemetry SDK wired for a Tandem process, configured by the standard
 * environment variables so that nothing is Tandem-specific for an operator. Traces and metrics go
 * out over OTLP/HTTP (protobuf by default, JSON on request) when an endpoint is set; metrics are
 * also served as Prometheus text when asked. Tandem's own instrumentation needs none of this: it
 * writes to `@opentelemetry/api`, and an application that registers its own SDK gets the same
 * spans and metrics without the preset.
 */

import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  CompositePropagator,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
import {
  detectResources,
  envDetector,
  hostDetector,
  processDetector,
  resourceFromAttributes,
  type ResourceDetector,
} from '@opentelemetry/resources';
import {
  AggregationType,
  MeterProvider,
  PeriodicExportingMetricReader,
  type IMetricReader,
  type ViewOptions,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ConfigurationError } from '../protocol/local-errors.js';
import { INSTRUMENTS } from '../telemetry/instrument-catalogue.js';
import { TELEMETRY_SCOPE_VERSION } from '../telemetry/telemetry-scope.js';
import { readOtelEnvironment } from './otel-environment.js';
import { createMetricExporter, createSpanExporter } from './otlp-exporters.js';
import {
  listenForMetrics,
  PrometheusEndpoint,
  type MetricsListener,
} from './prometheus-endpoint.js';

/** What the preset is asked for besides the environment. */
export interface TelemetryOptions {
  /**
   * `service.name` when neither `OTEL_SERVICE_NAME` nor `service.name` in
   * `OTEL_RESOURCE_ATTRIBUTES` sets it. Default `tandem`; `tandem serve` passes the agent's name
   * when it serves one agent.
   */
  readonly serviceName?: string | undefined;
  /**
   * The OTLP/HTTP endpoint (`http://collector:4318`): the flag form of
   * `OTEL_EXPORTER_OTLP_ENDPOINT`, which it overrides along with the per-signal endpoints.
   */
  readonly otlpEndpoint?: string | undefined;
  /**
   * Prometheus text: `true` to render it through {@link Telemetry.metricsText} (the server
   * mounts `GET /metrics`), or `{ port }` (and `host`) for a listener of its own, which serves
   * `GET /metrics` and nothing else.
   */
  readonly prometheus?:
    boolean | { readonly port: number; readonly host?: string | undefined } | undefined;
  /** The runtime's metrics (event-loop delay, heap, GC, CPU) with the others. Default true. */
  readonly runtimeMetrics?: boolean | undefined;
}

/** The running preset. */
export interface Telemetry {
  /** Whether spans are exported (OTLP). */
  readonly tracing: boolean;
  /** Whether metrics are collected (OTLP or Prometheus). */
  readonly metrics: boolean;
  /** The Prometheus text of every metric now; `undefined` when Prometheus was not asked for. */
  readonly metricsText: (() => Promise<string>) | undefined;
  /** The port of the Prometheus listener of its own, when there is one. */
  readonly metricsPort: number | undefined;
  /** Exports what is pending and stops, listener included. */
  shutdown(): Promise<void>;
}

/** The histograms' bucket boundaries as views, for SDKs that ignore the instruments' advice. */
function histogramViews(): ViewOptions[] {
  const views: ViewOptions[] = [];
  for (const definition of Object.values(INSTRUMENTS)) {
    if (definition.kind !== 'histogram' || !('buckets' in definition)) continue;
    views.push({
      instrumentName: definition.name,
      aggregation: {
        type: AggregationType.EXPLICIT_BUCKET_HISTOGRAM,
        options: { boundaries: [...definition.buckets] },
      },
    });
  }
  return views;
}

function prometheusPort(option: TelemetryOptions['prometheus']): void {
  if (typeof option !== 'object') return;
  if (!Number.isSafeInteger(option.port) || option.port < 0 || option.port > 65535) {
    throw new ConfigurationError(
      `prometheus.port must be a port number from 0 to 65535; got ${String(option.port)}`,
    );
  }
}

const DISABLED: Telemetry = {
  tracing: false,
  metrics: false,
  metricsText: undefined,
  metricsPort: undefined,
  shutdown: () => Promise.resolve(),
};

/**
 * The process detector without the command line: `tandem serve --token …` or a database URL with
 * its password on the command line would otherwise be in every exported span and metric, and in
 * Prometheus's `target_info`.
 */
const processWithoutArguments: ResourceDetector = {
  detect(config) {
    const { attributes = {} } = processDetector.detect(config);
    const kept = Object.entries(attributes).filter(([key]) => !COMMAND_LINE_KEYS.has(key));
    return { attributes: Object.fromEntries(kept) };
  },
};

const COMMAND_LINE_KEYS = new Set([
  'process.command',
  'process.command_args',
  'process.command_line',
]);

/**
 * Starts the SDK and registers it with `@opentelemetry/api` (tracer and meter providers, the
 * AsyncLocalStorage context manager, the W3C trace-context and baggage propagators). With no
 * endpoint, no Prometheus and `OTEL_SDK_DISABLED` unset, nothing is started.
 *
 * @throws ConfigurationError naming the variable or option that is wrong.
 */
export async function startTelemetry(options: TelemetryOptions = {}): Promise<Telemetry> {
  prometheusPort(options.prometheus);
  const environment = readOtelEnvironment(process.env, options.otlpEndpoint);
  const prometheus = options.prometheus !== undefined && options.prometheus !== false;
  if (environment.disabled) return DISABLED;
  if (environment.traces === undefined && environment.metrics === undefined && !prometheus) {
    return DISABLED;
  }

  const resource = resourceFromAttributes({
    'service.name': options.serviceName ?? 'tandem',
    'telemetry.distro.name': 'tandem',
    'telemetry.distro.version': TELEMETRY_SCOPE_VERSION,
  }).merge(detectResources({ detectors: [processWithoutArguments, hostDetector, envDetector] }));

  const shutdowns: (() => Promise<void>)[] = [];
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
    }),
  );

  let tracing = false;
  if (environment.traces !== undefined) {
    const provider = new BasicTracerProvider({
      resource,
      // The sampler comes from OTEL_TRACES_SAMPLER / _ARG, the batching from OTEL_BSP_*.
      spanProcessors: [new BatchSpanProcessor(await createSpanExporter(environment.traces))],
    });
    trace.setGlobalTracerProvider(provider);
    shutdowns.push(() => provider.shutdown());
    tracing = true;
  }

  const readers: IMetricReader[] = [];
  if (environment.metrics !== undefined) {
    readers.push(
      new PeriodicExportingMetricReader({
        exporter: await createMetricExporter(environment.metrics),
        exportIntervalMillis: environment.metricExportIntervalMs,
        exportTimeoutMillis: Math.min(30_000, environment.metricExportIntervalMs),
      }),
    );
  }
  const endpoint = prometheus ? new PrometheusEndpoint() : undefined;
  if (endpoint !== undefined) readers.push(endpoint.reader);
  let listener: MetricsListener | undefined;
  if (readers.length > 0) {
    const meterProvider = new MeterProvider({ resource, readers, views: histogramViews() });
    metrics.setGlobalMeterProvider(meterProvider);
    if (options.runtimeMetrics !== false) {
      const { RuntimeNodeInstrumentation } =
        await import('@opentelemetry/instrumentation-runtime-node');
      const runtime = new RuntimeNodeInstrumentation();
      runtime.setMeterProvider(meterProvider);
      runtime.enable();
      // After the last export, which still reads the runtime's observables.
      shutdowns.push(async () => {
        await meterProvider.shutdown();
        runtime.disable();
      });
    } else {
      shutdowns.push(() => meterProvider.shutdown());
    }
    if (endpoint !== undefined && typeof options.prometheus === 'object') {
      listener = await listenForMetrics(endpoint, options.prometheus.port, options.prometheus.host);
      const opened = listener;
      shutdowns.unshift(() => opened.close());
    }
  }

  return {
    tracing,
    metrics: readers.length > 0,
    metricsText: endpoint === undefined ? undefined : () => endpoint.render(),
    metricsPort: listener?.port,
    async shutdown() {
      const results = await Promise.allSettled(shutdowns.map((stop) => stop()));
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
      const failed = results.find((result) => result.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
    },
  };
}
