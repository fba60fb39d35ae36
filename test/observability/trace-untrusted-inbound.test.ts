/**
 * An edge that does not trust its callers' `traceparent` (`trustInboundContext: false`, the
 * server's `telemetry` option): each call starts a trace of its own, linked (`a2a.link:
 * inbound`) to what the caller sent, without the caller's baggage — also when a transport
 * instrumentation already made a span from that traceparent. What the task does later belongs
 * to the edge's trace: the agent's spans, and the origin stored with the task.
 */

import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCardResolver, createClient, type A2AClient, type Task } from '../../src/client.js';
import {
  createA2AServer,
  createRequestHandler,
  defineAgent,
  type A2AServer,
} from '../../src/server.js';
import { ServerCallTelemetry } from '../../src/telemetry/server-call-telemetry.js';
import { testCard } from '../support/agents.js';
import {
  parentOf,
  registerTraceRecorder,
  tandemSpan,
  type TraceRecorder,
} from './support/trace-recorder.js';
import { tracedServer } from './support/trace-server-spans.js';

let recorder: TraceRecorder;
beforeAll(() => {
  recorder = registerTraceRecorder();
});
afterAll(() => recorder.shutdown());

const edgeAgent = defineAgent({
  card: testCard('Edge'),
  async execute(ctx) {
    const baggage = propagation.getActiveBaggage()?.getEntry('tier')?.value ?? 'none';
    trace.getTracer('edge-agent').startActiveSpan('tool.edge', (span) => {
      span.setAttribute('test.baggage', baggage);
      span.end();
    });
    await ctx.artifact('ok');
    return ctx.complete();
  },
});

describe('an edge server that does not trust inbound context', () => {
  let server: A2AServer;
  let client: A2AClient;
  beforeAll(async () => {
    server = createA2AServer({
      agents: [{ path: '', handler: createRequestHandler({ agent: edgeAgent }) }],
      ...tracedServer({ trustInboundContext: false }),
      http: { port: 0, host: '127.0.0.1' },
    });
    const address = await server.listen();
    client = await createClient(address.http?.url ?? '', { cardResolver: createCardResolver() });
    return () => server.shutdown({ deadlineMs: 1_000 });
  });

  it('starts a trace of its own for the call, linked to the caller’s, and keeps the task in it', async () => {
    const caller = trace.getTracer('caller');
    const withBaggage = propagation.setBaggage(
      context.active(),
      propagation.createBaggage({ tier: { value: 'gold' } }),
    );
    const { task, callerTrace } = await context.with(withBaggage, () =>
      caller.startActiveSpan('outside', { root: true }, async (span) => {
        try {
          const answer = (await client.sendMessage({ message: { parts: [{ text: 'go' }] } })) as {
            task: Task;
          };
          return { task: answer.task, callerTrace: span.spanContext().traceId };
        } finally {
          span.end();
        }
      }),
    );
    const clientSpan = await recorder.waitFor(
      (s) => tandemSpan(SpanKind.CLIENT, 'Edge')(s) && s.spanContext().traceId === callerTrace,
      'the caller’s CLIENT span',
    );
    const call = await recorder.waitFor(
      (s) => tandemSpan(SpanKind.SERVER, 'Edge')(s) && s.attributes['a2a.task.id'] === task.id,
      'the edge’s SERVER span',
    );
    expect(call.spanContext().traceId).not.toBe(callerTrace);
    expect(parentOf(call)).toBeUndefined();
    expect(call.links.map((link) => [link.attributes?.['a2a.link'], link.context.spanId])).toEqual([
      ['inbound', clientSpan.spanContext().spanId],
    ]);
    // The agent runs in the edge's trace, without the caller's baggage.
    const tool = await recorder.waitFor((s) => s.name === 'tool.edge', 'the agent’s span');
    expect(parentOf(tool)).toBe(call.spanContext().spanId);
    expect(tool.attributes['test.baggage']).toBe('none');

    // The task's origin is the edge's span: a later subscriber links there, not to the caller.
    const subscriber = await caller.startActiveSpan('later', { root: true }, async (span) => {
      try {
        for await (const event of client.subscribeToTask({ id: task.id }, { lastEventId: '0' })) {
          if (event.statusUpdate?.status.state === 'TASK_STATE_COMPLETED') break;
        }
        return span.spanContext().traceId;
      } finally {
        span.end();
      }
    });
    const resumed = await recorder.waitFor(
      (s) => tandemSpan(SpanKind.SERVER, 'Edge', 'SubscribeToTask')(s),
      'the SubscribeToTask SERVER span',
    );
    expect(resumed.spanContext().traceId).not.toBe(subscriber);
    const links = resumed.links.map((link) => [link.attributes?.['a2a.link'], link.context.spanId]);
    expect(links).toContainEqual(['task_origin', call.spanContext().spanId]);
  });

  it('starts a trace of its own even under a transport span made from the caller’s traceparent', () => {
    const inbound = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const headers: Record<string, string> = { traceparent: inbound };
    const fromCaller = propagation.extract(context.active(), headers);
    const transport = trace
      .getTracer('http')
      .startSpan('POST /', { kind: SpanKind.SERVER }, fromCaller);
    const facts = {
      binding: 'JSONRPC',
      protocolVersion: '1.0',
      tenant: '',
      agent: { card: { name: 'Edge' } },
      serviceParameters: { get: (name: string) => headers[name] },
    };
    const telemetry = context.with(trace.setSpan(fromCaller, transport), () =>
      ServerCallTelemetry.start('GetTask', facts, { id: 't-1' }, { trustInboundContext: false }),
    );
    telemetry.succeeded(undefined);
    transport.end();
    const span = recorder
      .spans()
      .find((s) => s.name === 'GetTask' && s.attributes['a2a.task.id'] === 't-1');
    expect(span?.spanContext().traceId).not.toBe('0af7651916cd43dd8448eb211c80319c');
    expect(span === undefined ? 'missing' : parentOf(span)).toBeUndefined();
    expect(span?.links.map((link) => link.context.spanId)).toEqual(['b7ad6b7169203331']);
  });
});
