/**
 * `tandem/otel`, configured by the standard variables only, exporting to a local OTLP/HTTP
 * receiver: protobuf by default and JSON on request, the headers, service name and resource
 * attributes of the environment, the sampler, the batch delay and the metric interval honoured;
 * histograms with the catalogue's boundaries; the runtime's metrics; and Prometheus text whose
 * names are the OTLP names after the standard mapping. Mistakes fail at start, naming the
 * variable.
 */

import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCardResolver, createClient } from '../../src/client.js';
import { ConfigurationError } from '../../src/index.js';
import { OPERATION_DURATION_BUCKETS, startTelemetry, type Telemetry } from '../../src/otel.js';
import { createNodeServer, createRequestHandler, type A2ANodeServer } from '../../src/server.js';
import { clientTestAgent } from '../support/agents.js';
import { attributeOf, OtlpReceiver, type ReceivedMetric } from './support/otlp-receiver.js';
import { parsePrometheusText, type PromHistogramData } from './support/prometheus-text.js';

let server: A2ANodeServer;
let url: string;
let receiver: OtlpReceiver;
let telemetry: Telemetry | undefined;

beforeAll(async () => {
  server = createNodeServer({
    agents: [{ path: '', handler: createRequestHandler({ agent: clientTestAgent }) }],
    heartbeatMs: 0,
  });
  ({ url } = await server.listen({ port: 0, host: '127.0.0.1' }));
});

afterAll(async () => {
  await server.shutdown({ deadlineMs: 500 });
});

afterEach(async () => {
  await telemetry?.shutdown();
  telemetry = undefined;
  await receiver?.close();
  vi.unstubAllEnvs();
});

/** Starts a receiver and points the standard variables at it, with `env` on top. */
async function exportTo(env: Record<string, string> = {}): Promise<void> {
  receiver = await OtlpReceiver.start();
  vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', receiver.endpoint);
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
}

/** A few calls, each a CLIENT span and a measurement. */
async function workload(): Promise<void> {
  const client = await createClient(url, { cardResolver: createCardResolver() });
  await client.sendMessage({ message: { parts: [{ text: 'echo one' }] } });
  for await (const _event of client.sendStreamingMessage({
    message: { parts: [{ text: 'stream 2' }] },
  })) {
    // consumed to the end
  }
  await expect(client.getTask({ id: crypto.randomUUID() })).rejects.toThrow();
}

describe.each([
  ['http/protobuf', 'application/x-protobuf', {}],
  ['http/json', 'application/json', { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }],
] as const)('OTLP over %s', (_protocol, contentType, env) => {
  it('exports spans and metrics with the environment’s headers and resource', async () => {
    await exportTo({
      ...env,
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-tenant=blue',
      OTEL_SERVICE_NAME: 'preset-test',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test,service.namespace=agents',
    });
    telemetry = await startTelemetry();
    expect(telemetry).toMatchObject({ tracing: true, metrics: true });
    await workload();
    await telemetry.shutdown();
    telemetry = undefined;

    const traces = receiver.exports.filter((received) => received.signal === 'traces');
    expect(traces.length).toBeGreaterThan(0);
    for (const received of receiver.exports) {
      expect(received.contentType).toBe(contentType);
      expect(received.headers['x-collector-tenant']).toBe('blue');
      expect(attributeOf(received.resourceAttributes, 'service.name')).toBe('preset-test');
      expect(attributeOf(received.resourceAttributes, 'service.namespace')).toBe('agents');
      expect(attributeOf(received.resourceAttributes, 'deployment.environment.name')).toBe('test');
      // The command line may carry a token or a database password: never exported.
      const keys = received.resourceAttributes.map((attribute) => attribute.key);
      expect(keys).toContain('process.pid');
      expect(keys).not.toContain('process.command_args');
      expect(keys).not.toContain('process.command_line');
    }
    const spans = receiver.spans;
    // Each call's CLIENT span and the server's SERVER span, in one process here.
    expect(spans.map((span) => `${span.name} ${span.kind}`).sort()).toEqual([
      'GetTask 2',
      'GetTask 3',
      'SendMessage 2',
      'SendMessage 3',
      'SendStreamingMessage 2',
      'SendStreamingMessage 3',
    ]);
    const getTask = spans.find((span) => span.name === 'GetTask' && span.kind === 3);
    const served = spans.find((span) => span.name === 'GetTask' && span.kind === 2);
    expect(served?.parentSpanId).toBe(getTask?.spanId);
    expect(attributeOf(served?.attributes, 'error.type')).toBe('TaskNotFoundError');
    expect(getTask?.status?.code).toBe(2); // STATUS_CODE_ERROR
    expect(attributeOf(getTask?.attributes, 'error.type')).toBe('TaskNotFoundError');
    expect(getTask?.traceId).toMatch(/^[0-9a-f]{32}$/);

    const duration = receiver.metrics.find((m) => m.name === 'a2a.client.operation.duration');
    expect(duration?.unit).toBe('s');
    const points = duration?.histogram?.dataPoints ?? [];
    expect(points.length).toBe(3);
    for (const point of points) expect(point.explicitBounds).toEqual(OPERATION_DURATION_BUCKETS);
    const names = new Set(receiver.metrics.map((m) => m.name));
    // The runtime's metrics, from the preset (event-loop delay needs time to sample, so the
    // check is on what every collection has).
    expect(names).toContain('nodejs.eventloop.utilization');
    expect(names).toContain('v8js.memory.heap.used');
  });
});

describe('the environment', () => {
  it('OTEL_BSP_SCHEDULE_DELAY and OTEL_METRIC_EXPORT_INTERVAL set when things leave', async () => {
    await exportTo({ OTEL_BSP_SCHEDULE_DELAY: '20', OTEL_METRIC_EXPORT_INTERVAL: '100' });
    telemetry = await startTelemetry();
    await workload();
    // Neither flushed by a shutdown: each arrives on its own schedule.
    await receiver.waitFor((r) => r.spans.length >= 6);
    await receiver.waitFor((r) =>
      r.metrics.some((m) => m.name === 'a2a.client.operation.duration'),
    );
  });

  it('OTEL_TRACES_SAMPLER=always_off samples nothing; metrics still flow', async () => {
    await exportTo({ OTEL_TRACES_SAMPLER: 'always_off' });
    telemetry = await startTelemetry();
    await workload();
    await telemetry.shutdown();
    telemetry = undefined;
    expect(receiver.spans).toEqual([]);
    expect(receiver.metrics.some((m) => m.name === 'a2a.client.operation.duration')).toBe(true);
  });

  it('OTEL_TRACES_SAMPLER=traceidratio with OTEL_TRACES_SAMPLER_ARG=0 samples nothing', async () => {
    await exportTo({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' });
    telemetry = await startTelemetry();
    await workload();
    await telemetry.shutdown();
    telemetry = undefined;
    expect(receiver.spans).toEqual([]);
  });

  it('the per-signal endpoints, and the flag form overriding them', async () => {
    receiver = await OtlpReceiver.start();
    vi.stubEnv('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', `${receiver.endpoint}/v1/traces`);
    telemetry = await startTelemetry({ runtimeMetrics: false });
    expect(telemetry).toMatchObject({ tracing: true, metrics: false });
    await workload();
    await telemetry.shutdown();
    telemetry = undefined;
    expect(receiver.spans.length).toBe(6);

    const other = await OtlpReceiver.start();
    try {
      telemetry = await startTelemetry({ otlpEndpoint: other.endpoint, runtimeMetrics: false });
      expect(telemetry).toMatchObject({ tracing: true, metrics: true });
      await workload();
      await telemetry.shutdown();
      telemetry = undefined;
      expect(other.spans.length).toBe(6);
      expect(receiver.spans.length).toBe(6);
    } finally {
      await other.close();
    }
  });

  it('starts nothing without an endpoint, Prometheus or with OTEL_SDK_DISABLED', async () => {
    expect(await startTelemetry()).toMatchObject({ tracing: false, metrics: false });
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', 'http://127.0.0.1:9');
    vi.stubEnv('OTEL_SDK_DISABLED', 'true');
    expect(await startTelemetry()).toMatchObject({ tracing: false, metrics: false });
  });

  it('refuses what it cannot honour, naming the variable', async () => {
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', 'http://127.0.0.1:9');
    vi.stubEnv('OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc');
    await expect(startTelemetry()).rejects.toThrow(ConfigurationError);
    await expect(startTelemetry()).rejects.toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL=grpc/);
    vi.stubEnv('OTEL_EXPORTER_OTLP_PROTOCOL', 'http/json');
    vi.stubEnv('OTEL_METRIC_EXPORT_INTERVAL', 'soon');
    await expect(startTelemetry()).rejects.toThrow(/OTEL_METRIC_EXPORT_INTERVAL=soon/);
    vi.stubEnv('OTEL_METRIC_EXPORT_INTERVAL', '1000');
    vi.stubEnv('OTEL_TRACES_EXPORTER', 'zipkin');
    await expect(startTelemetry()).rejects.toThrow(/OTEL_TRACES_EXPORTER=zipkin/);
    await expect(startTelemetry({ otlpEndpoint: 'collector' })).rejects.toThrow(/not a URL/);
  });
});

/**
 * The standard mapping, written out independently of the preset: the unit's word as a suffix
 * (`1` on a gauge: `ratio`), annotations dropped, `_total` on counters, dots to underscores.
 */
function expectedPrometheusName(metric: ReceivedMetric): string {
  const words: Record<string, string> = { s: 'seconds', By: 'bytes', ms: 'milliseconds' };
  const bare = (metric.unit ?? '').replace(/\{[^}]*\}/g, '');
  const monotonicSum = metric.sum?.isMonotonic === true;
  let result = metric.name.replace(/[^a-zA-Z0-9_:]/g, '_');
  const suffix =
    bare === ''
      ? ''
      : bare === '1'
        ? metric.gauge === undefined
          ? ''
          : 'ratio'
        : (words[bare] ?? bare);
  if (suffix !== '' && !result.endsWith(`_${suffix}`)) result += `_${suffix}`;
  if (monotonicSum && !result.endsWith('_total')) result += '_total';
  return result;
}

describe('Prometheus', () => {
  it('serves the instruments of OTLP, named by the standard mapping, on a port of its own', async () => {
    await exportTo();
    telemetry = await startTelemetry({ prometheus: { port: 0, host: '127.0.0.1' } });
    const port = telemetry.metricsPort;
    expect(port).toBeGreaterThan(0);
    await workload();
    const response = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const families = await parsePrometheusText(await response.text());

    const duration = families.a2a_client_operation_duration_seconds;
    expect(duration?.type).toBe('histogram');
    const samples = (duration?.data ?? []) as PromHistogramData[];
    const sendMessage = samples.find((m) => m.labels.a2a_method_name === 'SendMessage');
    expect(sendMessage?.count).toBe(1);
    // Bucket bounds as numbers: an object's integer-like keys do not keep their order.
    const bounds = Object.keys(sendMessage?.buckets ?? {})
      .map((bound) => (bound === '+Inf' ? Infinity : Number(bound)))
      .sort((a, b) => a - b);
    expect(bounds).toEqual([...OPERATION_DURATION_BUCKETS, Infinity]);
    const failed = samples.find((m) => m.labels.a2a_method_name === 'GetTask');
    expect(failed?.labels.error_type).toBe('TaskNotFoundError');

    // The same instruments, under the same names, as OTLP has them.
    await telemetry.shutdown();
    telemetry = undefined;
    const otlpNames = new Set(receiver.metrics.map(expectedPrometheusName));
    const prometheusNames = Object.keys(families).filter((name) => name !== 'target_info');
    // The scrape came before the last export, which may hold metrics sampled since (the
    // event-loop delay); every scraped family is one of them, under the same name.
    expect(prometheusNames.filter((name) => !otlpNames.has(name))).toEqual([]);
    expect(prometheusNames).toContain('v8js_memory_heap_used_bytes');
    expect(prometheusNames).toContain('nodejs_eventloop_utilization_ratio');
    expect(prometheusNames).toContain('nodejs_eventloop_time_seconds_total');
  });

  it('a listener of its own serves /metrics and nothing else', async () => {
    telemetry = await startTelemetry({
      prometheus: { port: 0, host: '127.0.0.1' },
      runtimeMetrics: false,
    });
    const base = `http://127.0.0.1:${telemetry.metricsPort}`;
    expect((await fetch(`${base}/`)).status).toBe(404);
    expect((await fetch(`${base}/.well-known/agent-card.json`)).status).toBe(404);
    expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(405);
    expect(telemetry.metricsText).toBeDefined();
  });

  it('prometheus: true renders the text for a route of the server', async () => {
    telemetry = await startTelemetry({ prometheus: true, runtimeMetrics: false });
    expect(telemetry.metricsPort).toBeUndefined();
    await workload();
    const families = await parsePrometheusText((await telemetry.metricsText?.()) ?? '');
    expect(Object.keys(families)).toContain('a2a_client_operation_duration_seconds');
  });
});
