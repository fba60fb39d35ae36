/**
 * The server side of a call's telemetry, driven as the server interceptor drives it: the SERVER
 * span's parent (the transport's span, else the caller's traceparent; with inbound context
 * untrusted, a new trace linking to it), its attributes, status and error.type, and a stream's
 * span lasting to its end with the reason, the time to the first event and the event count.
 */

import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TaskNotFoundError } from '../../src/index.js';
import {
  ServerCallTelemetry,
  type ServerCallFacts,
} from '../../src/telemetry/server-call-telemetry.js';
import {
  registerInMemoryTelemetry,
  type InMemoryTelemetry,
} from './support/in-memory-telemetry.js';

let telemetry: InMemoryTelemetry;

beforeAll(() => {
  telemetry = registerInMemoryTelemetry();
});
afterAll(() => telemetry.shutdown());
beforeEach(() => telemetry.reset());

const CALLER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CALLER_SPAN = 'b7ad6b7169203331';

function callWith(headers: Record<string, string>, binding = 'JSONRPC'): ServerCallFacts {
  return {
    binding,
    protocolVersion: '1.0',
    tenant: 'blue',
    agent: { card: { name: 'Dice', version: '2.1.0' } },
    serviceParameters: { get: (name) => headers[name] },
  };
}

const traced = callWith({
  traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
  baggage: 'user_tier=gold',
});

describe('the SERVER span of a call', () => {
  it('is a child of the caller’s traceparent, named after the method, with the call’s attributes', () => {
    const call = ServerCallTelemetry.start('GetTask', traced, { id: 't-1' });
    // The operation sees the span, and the caller's baggage.
    context.with(call.context, () => {
      expect(trace.getActiveSpan()?.spanContext().traceId).toBe(CALLER_TRACE);
      expect(propagation.getActiveBaggage()?.getEntry('user_tier')?.value).toBe('gold');
    });
    call.succeeded({ id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } });
    const [span] = telemetry.spans();
    expect(span?.name).toBe('GetTask');
    expect(span?.kind).toBe(SpanKind.SERVER);
    expect(span?.spanContext().traceId).toBe(CALLER_TRACE);
    expect(span?.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    expect(span?.attributes).toEqual({
      'a2a.method.name': 'GetTask',
      'a2a.task.id': 't-1',
      'a2a.task.state': 'TASK_STATE_WORKING',
      'gen_ai.conversation.id': 'c-1',
      'gen_ai.agent.name': 'Dice',
      'gen_ai.agent.version': '2.1.0',
      'a2a.protocol.version': '1.0',
      'a2a.protocol.binding': 'JSONRPC',
      'a2a.tenant': 'blue',
    });
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('is a child of the transport’s span when an instrumentation made one', () => {
    const transport = trace.getTracer('http').startSpan('POST /', { kind: SpanKind.SERVER });
    const call = context.with(trace.setSpan(context.active(), transport), () =>
      ServerCallTelemetry.start('GetTask', traced, { id: 't-1' }),
    );
    call.succeeded(undefined);
    transport.end();
    const span = telemetry.spans().find((s) => s.name === 'GetTask');
    expect(span?.parentSpanContext?.spanId).toBe(transport.spanContext().spanId);
  });

  it('with inbound context untrusted, starts a new trace that links to the caller’s', () => {
    const call = ServerCallTelemetry.start(
      'GetTask',
      traced,
      { id: 't-1' },
      {
        trustInboundContext: false,
      },
    );
    context.with(call.context, () => {
      expect(propagation.getActiveBaggage()).toBeUndefined();
    });
    call.succeeded(undefined);
    const [span] = telemetry.spans();
    expect(span?.spanContext().traceId).not.toBe(CALLER_TRACE);
    expect(span?.parentSpanContext).toBeUndefined();
    expect(span?.links.map((link) => link.context.spanId)).toEqual([CALLER_SPAN]);
  });

  it('a failure: status ERROR, error.type the A2A error’s type, never its message', () => {
    const call = ServerCallTelemetry.start('GetTask', callWith({}), { id: 'gone' });
    call.failed(new TaskNotFoundError('Task gone was not found (a detail that stays out)'));
    const [span] = telemetry.spans();
    expect(span?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'TaskNotFoundError' });
    expect(span?.attributes['error.type']).toBe('TaskNotFoundError');
    expect(JSON.stringify(span?.events)).not.toContain('detail');
    expect(span?.parentSpanContext).toBeUndefined();
  });

  it('an unexpected exception is _OTHER', () => {
    const call = ServerCallTelemetry.start('SendMessage', callWith({}), {});
    call.failed(new Error('database password rejected'));
    expect(telemetry.spans()[0]?.attributes['error.type']).toBe('_OTHER');
  });
});

describe('a streaming call', () => {
  const statusEvent = (state: string) => ({
    statusUpdate: { taskId: 't-2', contextId: 'c-2', status: { state } },
  });

  it('lasts to the stream’s end, with the reason, the events and the last state', () => {
    const call = ServerCallTelemetry.start('SendStreamingMessage', traced, {
      message: { messageId: 'm-1', role: 'ROLE_USER', parts: [] },
    });
    call.event(statusEvent('TASK_STATE_WORKING') as never);
    expect(telemetry.spans()).toEqual([]);
    call.event(statusEvent('TASK_STATE_COMPLETED') as never);
    call.streamEnded({ kind: 'completed' });
    const [span] = telemetry.spans();
    expect(span?.attributes).toMatchObject({
      'a2a.message.id': 'm-1',
      'a2a.task.id': 't-2',
      'a2a.task.state': 'TASK_STATE_COMPLETED',
      'a2a.stream.end_reason': 'completed',
      'a2a.stream.events': 2,
    });
  });

  it.each([
    [{ kind: 'canceled' } as const, 'TASK_STATE_WORKING', 'client_gone', SpanStatusCode.UNSET],
    [{ kind: 'completed' } as const, 'TASK_STATE_CANCELED', 'canceled', SpanStatusCode.UNSET],
    [
      { kind: 'failed', error: new Error('x') } as const,
      'TASK_STATE_WORKING',
      'error',
      SpanStatusCode.ERROR,
    ],
  ])('ends %o after %s as %s', (end, state, reason, status) => {
    const call = ServerCallTelemetry.start('SubscribeToTask', traced, { id: 't-2' });
    call.event(statusEvent(state) as never);
    call.streamEnded(end);
    const [span] = telemetry.spans();
    expect(span?.attributes['a2a.stream.end_reason']).toBe(reason);
    expect(span?.status.code).toBe(status);
  });

  it('records the duration, the time to the first event and the events per stream', async () => {
    const call = ServerCallTelemetry.start('SendStreamingMessage', callWith({}, 'GRPC'), {});
    call.event(statusEvent('TASK_STATE_COMPLETED') as never);
    call.streamEnded({ kind: 'completed' });
    const metrics = await telemetry.metrics();
    const names = metrics.map((m) => m.descriptor.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'a2a.server.operation.duration',
        'a2a.server.response.time_to_first_event',
        'a2a.server.stream.events',
      ]),
    );
    const events = metrics.find((m) => m.descriptor.name === 'a2a.server.stream.events');
    expect(events?.dataPoints.map((p) => p.attributes)).toContainEqual({
      'a2a.method.name': 'SendStreamingMessage',
      'a2a.protocol.binding': 'GRPC',
      'a2a.protocol.version': '1.0',
      'gen_ai.agent.name': 'Dice',
      'a2a.stream.end_reason': 'completed',
    });
  });
});
