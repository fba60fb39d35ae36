#!/usr/bin/env node
/**
 * How the core should publish its telemetry, measured: the instrumentation of one A2A call (a
 * SERVER span named after the method with its attributes, the call run inside the span's
 * context, the duration histogram) written (a) against `@opentelemetry/api` directly and (b) as
 * a `diagnostics_channel` TracingChannel with a built-in subscriber that makes the same span and
 * measurement, each (1) with no SDK registered and (2) with an SDK (always-on sampling, a batch
 * processor whose exporter drops the spans), against (0) the bare call. Prints nanoseconds and
 * bytes allocated per call. Usage: node bench/telemetry-publish.mjs [--calls 200000] [--rounds 5]
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import diagnostics from 'node:diagnostics_channel';
import { parseArgs } from 'node:util';
import { context, metrics, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '200000' },
    rounds: { type: 'string', default: '5' },
    sdk: { type: 'boolean', default: false },
  },
});
const calls = Number(values.calls);
const rounds = Number(values.rounds);

if (values.sdk) {
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { BasicTracerProvider, BatchSpanProcessor, AlwaysOnSampler } =
    await import('@opentelemetry/sdk-trace-base');
  const { MeterProvider } = await import('@opentelemetry/sdk-metrics');
  const dropping = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };
  const provider = new BasicTracerProvider({
    sampler: new AlwaysOnSampler(),
    spanProcessors: [new BatchSpanProcessor(dropping, { maxQueueSize: 65536 })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  metrics.setGlobalMeterProvider(new MeterProvider());
}

const tracer = trace.getTracer('tandem');
const duration = metrics.getMeter('tandem').createHistogram('a2a.server.operation.duration', {
  unit: 's',
});
const request = { message: { messageId: 'm-1', contextId: 'c-1', taskId: undefined } };
const work = async (r) => ({ task: { id: 't-1', status: { state: 'TASK_STATE_COMPLETED' } }, r });

// (a) the API, directly: one span, attributes only when it records.
async function viaApi(operation, req) {
  const span = tracer.startSpan(operation, { kind: SpanKind.SERVER });
  const start = performance.now();
  const recording = span.isRecording();
  if (recording) {
    span.setAttribute('a2a.method.name', operation);
    span.setAttribute('a2a.message.id', req.message.messageId);
    span.setAttribute('gen_ai.conversation.id', req.message.contextId);
  }
  try {
    const result = await context.with(trace.setSpan(context.active(), span), work, undefined, req);
    if (recording) span.setAttribute('a2a.task.state', result.task.status.state);
    return result;
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
    duration.record((performance.now() - start) / 1000, { 'a2a.method.name': operation });
  }
}

// (b) a TracingChannel, and the subscriber the library would ship to turn it into the same.
const channel = diagnostics.tracingChannel('tandem:a2a:server:call');
const spanStore = new AsyncLocalStorage();
channel.start.bindStore(spanStore, (message) => {
  const span = tracer.startSpan(message.operation, { kind: SpanKind.SERVER });
  message.span = span;
  message.start = performance.now();
  if (span.isRecording()) {
    span.setAttribute('a2a.method.name', message.operation);
    span.setAttribute('a2a.message.id', message.request.message.messageId);
    span.setAttribute('gen_ai.conversation.id', message.request.message.contextId);
  }
  return trace.setSpan(context.active(), span);
});
channel.subscribe({
  start() {},
  end() {},
  asyncStart(message) {
    if (message.span.isRecording() && message.result !== undefined) {
      message.span.setAttribute('a2a.task.state', message.result.task.status.state);
    }
  },
  asyncEnd(message) {
    message.span.end();
    duration.record((performance.now() - message.start) / 1000, {
      'a2a.method.name': message.operation,
    });
  },
  error(message) {
    message.span.setStatus({ code: SpanStatusCode.ERROR });
  },
});
function viaChannel(operation, req) {
  if (!channel.hasSubscribers) return work(req);
  return channel.tracePromise(work, { operation, request: req }, undefined, req);
}

const bare = (_operation, req) => work(req);

async function measure(name, call) {
  for (let i = 0; i < 20000; i++) await call('SendMessage', request);
  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const before = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await call('SendMessage', request);
  const ns = Number(process.hrtime.bigint() - before) / calls;
  const bytes = (process.memoryUsage().heapUsed - heapBefore) / calls;
  return { name, ns, bytes };
}

const results = { bare: [], api: [], channel: [] };
for (let round = 0; round < rounds; round++) {
  // Alternate the order round by round, so that a drifting machine does not favour one.
  const order = round % 2 === 0 ? ['bare', 'api', 'channel'] : ['channel', 'api', 'bare'];
  for (const name of order) {
    const call = name === 'bare' ? bare : name === 'api' ? viaApi : viaChannel;
    results[name].push(await measure(name, call));
  }
}
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`${values.sdk ? 'SDK registered' : 'no SDK'}: ${calls} calls × ${rounds} rounds`);
for (const [name, rows] of Object.entries(results)) {
  const ns = rows.map((r) => r.ns);
  console.log(
    `${name.padEnd(8)} median ${median(ns).toFixed(0)} ns/call (min ${Math.min(...ns).toFixed(0)}, max ${Math.max(...ns).toFixed(0)})`,
  );
}
