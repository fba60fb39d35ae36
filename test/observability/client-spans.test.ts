/**
 * The client's spans and trace context, on every binding at 1.0 and through the 0.3 doors: one
 * CLIENT span per call named after the operation, with the conventions' attributes, its status,
 * `error.type` on a failure, a stream's span lasting until the stream is consumed, and the
 * span's context arriving at the server as `traceparent` (HTTP header or gRPC metadata), with
 * `tracestate` and `baggage` — read where the server reads credentials, its identity hook.
 */

import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient, createCardResolver, type A2AClient } from '../../src/client.js';
import type { AgentCard } from '../../src/index.js';
import {
  ANONYMOUS,
  createNodeServer,
  createPushNotifier,
  createRequestHandler,
  createTaskRuntime,
  type A2ANodeServer,
  type Authenticator,
  type TaskRuntime,
} from '../../src/server.js';
import { MemoryTaskStore } from '../../src/stores.js';
import { compatV03 } from '../../src/server-compat.js';
import { createGrpcServer, type A2AGrpcServer } from '../../src/server-grpc.js';
import { clientTestAgent } from '../support/agents.js';
import {
  registerInMemoryTelemetry,
  traceparentOf,
  type InMemoryTelemetry,
} from './support/in-memory-telemetry.js';

let telemetry: InMemoryTelemetry;
let runtime: TaskRuntime;
let http: A2ANodeServer;
let grpc: A2AGrpcServer;
let url: string;
let card: AgentCard;
/** What the server's identity hook saw of each call's trace context, by `traceparent`. */
const seen = new Map<
  string,
  { binding: string; tracestate: string | undefined; baggage: string | undefined }
>();

beforeAll(async () => {
  telemetry = registerInMemoryTelemetry();
  runtime = createTaskRuntime({ store: new MemoryTaskStore() });
  await runtime.start();
  const push = createPushNotifier({ runtime, allow: ['127.0.0.1'], compat: compatV03() });
  const handler = createRequestHandler({ agent: clientTestAgent, runtime, push });
  const authenticate: Authenticator = ({ binding, headers }) => {
    const traceparent = headers.get('traceparent');
    if (traceparent != null) {
      seen.set(traceparent, {
        binding,
        tracestate: headers.get('tracestate') ?? undefined,
        baggage: headers.get('baggage') ?? undefined,
      });
    }
    return ANONYMOUS;
  };
  grpc = createGrpcServer({
    agents: [{ path: '', handler }],
    compat: compatV03(),
    authenticate,
  });
  http = createNodeServer({
    agents: [{ path: '', handler, interfaces: grpc.interfacesOf('') }],
    compat: compatV03(),
    heartbeatMs: 0,
    authenticate,
  });
  await grpc.listen({ port: 0, host: '127.0.0.1' });
  ({ url } = await http.listen({ port: 0, host: '127.0.0.1' }));
  card = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as AgentCard;
});

afterAll(async () => {
  await Promise.all([http.shutdown({ deadlineMs: 500 }), grpc.shutdown({ deadlineMs: 500 })]);
  await runtime.close();
  await telemetry.shutdown();
});

beforeEach(() => telemetry.reset());

const CELLS = [
  ['JSONRPC', '1.0'],
  ['HTTP+JSON', '1.0'],
  ['GRPC', '1.0'],
  ['JSONRPC', '0.3'],
  ['HTTP+JSON', '0.3'],
  ['GRPC', '0.3'],
] as const;

async function clientOf(binding: string, version: string): Promise<A2AClient> {
  const only = {
    ...card,
    supportedInterfaces: card.supportedInterfaces.filter(
      (i) => i.protocolBinding === binding && i.protocolVersion === version,
    ),
  };
  expect(only.supportedInterfaces).toHaveLength(1);
  return createClient(url, { card: only, cardResolver: createCardResolver(), retry: false });
}

function clientSpans(): ReadableSpan[] {
  return telemetry.spans().filter((span) => span.kind === SpanKind.CLIENT);
}

function onlySpan(name: string): ReadableSpan {
  const spans = clientSpans().filter((span) => span.name === name);
  expect(spans.map((span) => span.name)).toEqual([name]);
  return spans[0] as ReadableSpan;
}

/** The span's context reached the server through the identity hook of `binding`. */
function expectPropagated(span: ReadableSpan, binding: string): void {
  expect(seen.get(traceparentOf(span))?.binding).toBe(binding);
}

describe.each(CELLS)('client spans over %s at %s', (binding, version) => {
  let client: A2AClient;
  let port: number;

  beforeAll(async () => {
    client = await clientOf(binding, version);
    const target = client.selectedInterface.url;
    port = Number(/:(\d+)(?:\/|$)/.exec(target)?.[1]);
  });

  it('SendMessage: one CLIENT span with the call and the task, and its context at the server', async () => {
    const response = await client.sendMessage({ message: { parts: [{ text: 'echo hi' }] } });
    const task = response.task;
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    const span = onlySpan('SendMessage');
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes).toMatchObject({
      'a2a.method.name': 'SendMessage',
      'a2a.task.id': task?.id,
      'a2a.task.state': 'TASK_STATE_COMPLETED',
      'gen_ai.conversation.id': task?.contextId,
      'gen_ai.agent.name': 'Client test agent',
      'a2a.protocol.version': version,
      'a2a.protocol.binding': binding,
      'server.address': '127.0.0.1',
      'server.port': port,
    });
    expect(span.attributes['a2a.message.id']).toMatch(/[0-9a-f-]{36}/);
    expect(span.attributes['error.type']).toBeUndefined();
    expectPropagated(span, binding);
  });

  it('GetTask of an unknown task: status ERROR and error.type TaskNotFoundError, no message', async () => {
    await expect(client.getTask({ id: crypto.randomUUID() })).rejects.toThrow();
    const span = onlySpan('GetTask');
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'TaskNotFoundError' });
    expect(span.attributes['error.type']).toBe('TaskNotFoundError');
    expectPropagated(span, binding);
  });

  it('SendStreamingMessage: the span ends when the stream is consumed, with its events', async () => {
    const stream = client.sendStreamingMessage({ message: { parts: [{ text: 'stream 3' }] } });
    let events = 0;
    for await (const _event of stream) {
      events++;
      // While the caller is still reading, the call is not over.
      expect(clientSpans().filter((span) => span.name === 'SendStreamingMessage')).toEqual([]);
    }
    const span = onlySpan('SendStreamingMessage');
    expect(span.attributes).toMatchObject({
      'a2a.method.name': 'SendStreamingMessage',
      'a2a.task.state': 'TASK_STATE_COMPLETED',
      'a2a.stream.end_reason': 'completed',
      'a2a.stream.events': events,
      'a2a.protocol.binding': binding,
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expectPropagated(span, binding);
  });

  it('a stream the caller leaves early ends its span as canceled', async () => {
    const stream = client.sendStreamingMessage({ message: { parts: [{ text: 'stream 5' }] } });
    for await (const _event of stream) break;
    const span = onlySpan('SendStreamingMessage');
    expect(span.attributes['a2a.stream.end_reason']).toBe('canceled');
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('CancelTask and SubscribeToTask name the task', async () => {
    const created = await client.sendMessage({
      message: { parts: [{ text: 'wait' }] },
      configuration: { returnImmediately: true },
    });
    const id = created.task?.id ?? '';
    const subscription = client.subscribeToTask({ id })[Symbol.asyncIterator]();
    const first = await subscription.next();
    expect(first.done).toBe(false);
    const canceled = await client.cancelTask({ id });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    // Read to the end: the stream closes once the task is canceled.
    while (!(await subscription.next()).done);
    expect(onlySpan('CancelTask').attributes).toMatchObject({
      'a2a.task.id': id,
      'a2a.task.state': 'TASK_STATE_CANCELED',
    });
    expect(onlySpan('SubscribeToTask').attributes).toMatchObject({
      'a2a.task.id': id,
      'a2a.task.state': 'TASK_STATE_CANCELED',
      'a2a.stream.end_reason': 'completed',
    });
  });

  it('the caller’s span is the parent, and its tracestate and baggage travel with the call', async () => {
    const parent = trace.getTracer('test').startSpan('caller');
    const withBaggage = propagation.setBaggage(
      trace.setSpan(context.active(), parent),
      propagation.createBaggage({ tenant_hint: { value: 'blue' } }),
    );
    await context.with(withBaggage, () =>
      client.sendMessage({ message: { parts: [{ text: 'echo parented' }] } }),
    );
    parent.end();
    const span = onlySpan('SendMessage');
    expect(span.spanContext().traceId).toBe(parent.spanContext().traceId);
    expect(span.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(seen.get(traceparentOf(span))?.baggage).toBe('tenant_hint=blue');
  });
});

describe('client metrics', () => {
  it('records a2a.client.operation.duration in seconds, by method, binding, version and error', async () => {
    const client = await clientOf('JSONRPC', '1.0');
    await client.sendMessage({ message: { parts: [{ text: 'echo m' }] } });
    await expect(client.getTask({ id: crypto.randomUUID() })).rejects.toThrow();
    const metric = (await telemetry.metrics()).find(
      (m) => m.descriptor.name === 'a2a.client.operation.duration',
    );
    expect(metric?.descriptor.unit).toBe('s');
    const points = (metric?.dataPoints ?? []).map((point) => point.attributes);
    expect(points).toContainEqual(
      expect.objectContaining({
        'a2a.method.name': 'SendMessage',
        'a2a.protocol.binding': 'JSONRPC',
        'a2a.protocol.version': '1.0',
        'server.address': '127.0.0.1',
      }),
    );
    expect(points).toContainEqual(
      expect.objectContaining({ 'a2a.method.name': 'GetTask', 'error.type': 'TaskNotFoundError' }),
    );
    for (const attributes of points) {
      expect(Object.keys(attributes).sort()).not.toContain('a2a.task.id');
    }
  });
});
