/**
 * The server's spans over the whole matrix: the eleven operations on each binding at 1.0 and
 * through the 0.3 doors, called by Tandem's client against one real server (HTTP and gRPC on
 * loopback, sharing one core). Each call gives exactly one SERVER and one CLIENT span, named after
 * the operation, the server's a child of the client's (its traceparent crossed the wire), with
 * the conventions' attributes and status; a failure carries the A2A error's type; a streaming
 * span ends when its stream ends, with the reason.
 */

import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createClient, createCardResolver, type A2AClient } from '../../src/client.js';
import type { AgentCard } from '../../src/index.js';
import {
  createA2AServer,
  createPushNotifier,
  createRequestHandler,
  createTaskRuntime,
  type A2AServer,
  type TaskRuntime,
} from '../../src/server.js';
import { MemoryTaskStore } from '../../src/stores.js';
import { compatV03 } from '../../src/server-compat.js';
import { clientTestAgent } from '../support/agents.js';
import {
  registerInMemoryTelemetry,
  type InMemoryTelemetry,
} from './support/in-memory-telemetry.js';

let telemetry: InMemoryTelemetry;
let runtime: TaskRuntime;
let server: A2AServer;
let url: string;
let card: AgentCard;

beforeAll(async () => {
  telemetry = registerInMemoryTelemetry();
  runtime = createTaskRuntime({ store: new MemoryTaskStore() });
  await runtime.start();
  const compat = compatV03();
  // The compat layer also for push: a 0.3 config gets the 0.3 payload.
  const push = createPushNotifier({ runtime, allow: ['127.0.0.1'], compat });
  const handler = createRequestHandler({ agent: clientTestAgent, runtime, push });
  server = createA2AServer({
    agents: [{ path: '', handler }],
    compat,
    http: { port: 0, host: '127.0.0.1', heartbeatMs: 0 },
    grpc: { port: 0, host: '127.0.0.1' },
  });
  const address = await server.listen();
  url = address.http?.url ?? '';
  card = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as AgentCard;
});

afterAll(async () => {
  await server.shutdown({ deadlineMs: 500 });
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

function spansOf(name: string, kind: SpanKind): ReadableSpan[] {
  return telemetry.spans().filter((span) => span.name === name && span.kind === kind);
}

/** The call's SERVER and CLIENT span, once both ended: exactly one of each. */
async function pairOf(name: string): Promise<{ server: ReadableSpan; client: ReadableSpan }> {
  // The server's span of a stream ends when the server sees its end, which may come just after
  // the client read its last event: wait for it, bounded, rather than sleep.
  await vi.waitFor(
    () => {
      expect(spansOf(name, SpanKind.SERVER), `the SERVER span of ${name}`).toHaveLength(1);
      expect(spansOf(name, SpanKind.CLIENT), `the CLIENT span of ${name}`).toHaveLength(1);
    },
    { timeout: 5_000, interval: 10 },
  );
  const server = spansOf(name, SpanKind.SERVER)[0] as ReadableSpan;
  const client = spansOf(name, SpanKind.CLIENT)[0] as ReadableSpan;
  // Nothing else: one SERVER span per call, whatever the binding.
  expect(telemetry.spans().filter((s) => s.kind === SpanKind.SERVER)).toHaveLength(1);
  return { server, client };
}

describe.each(CELLS)('server spans over %s at %s', (binding, version) => {
  let client: A2AClient;
  let taskId: string;
  let contextId: string;

  /** The pair of `name`: the server's a child of the client's, with the call's attributes. */
  async function expectPair(
    name: string,
    attributes: Record<string, unknown> = {},
  ): Promise<ReadableSpan> {
    const { server, client: caller } = await pairOf(name);
    expect(server.kind).toBe(SpanKind.SERVER);
    expect(server.spanContext().traceId).toBe(caller.spanContext().traceId);
    expect(server.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
    expect(server.status.code).toBe(SpanStatusCode.UNSET);
    expect(server.attributes).toMatchObject({
      'a2a.method.name': name,
      'a2a.protocol.version': version,
      'a2a.protocol.binding': binding,
      'gen_ai.agent.name': 'Client test agent',
      ...attributes,
    });
    expect(server.attributes['error.type']).toBeUndefined();
    telemetry.reset();
    return server;
  }

  beforeAll(async () => {
    client = await clientOf(binding, version);
  });

  it('SendMessage', async () => {
    const response = await client.sendMessage({
      message: { parts: [{ text: 'wait' }] },
      configuration: { returnImmediately: true },
    });
    taskId = response.task?.id ?? '';
    contextId = response.task?.contextId ?? '';
    const span = await expectPair('SendMessage', {
      'a2a.task.id': taskId,
      'gen_ai.conversation.id': contextId,
      'a2a.task.state': 'TASK_STATE_WORKING',
    });
    expect(span.attributes['a2a.message.id']).toMatch(/[0-9a-f-]{36}/);
  });

  it('GetTask', async () => {
    await client.getTask({ id: taskId });
    await expectPair('GetTask', { 'a2a.task.id': taskId, 'a2a.task.state': 'TASK_STATE_WORKING' });
  });

  it.skipIf(version === '0.3')('ListTasks', async () => {
    await client.listTasks({ contextId });
    await expectPair('ListTasks', { 'gen_ai.conversation.id': contextId });
  });

  it('the four push config operations', async () => {
    const config = await client.createTaskPushNotificationConfig({
      taskId,
      url: 'http://127.0.0.1:9/hook',
    });
    await expectPair('CreateTaskPushNotificationConfig', { 'a2a.task.id': taskId });
    await client.getTaskPushNotificationConfig({ taskId, id: config.id ?? '' });
    await expectPair('GetTaskPushNotificationConfig', { 'a2a.task.id': taskId });
    await client.listTaskPushNotificationConfigs({ taskId });
    await expectPair('ListTaskPushNotificationConfigs', { 'a2a.task.id': taskId });
    await client.deleteTaskPushNotificationConfig({ taskId, id: config.id ?? '' });
    await expectPair('DeleteTaskPushNotificationConfig', { 'a2a.task.id': taskId });
  });

  it('GetExtendedAgentCard', async () => {
    await client.getExtendedAgentCard();
    await expectPair('GetExtendedAgentCard');
  });

  it('SubscribeToTask lasts to its stream’s end; CancelTask', async () => {
    const subscription = client.subscribeToTask({ id: taskId })[Symbol.asyncIterator]();
    expect((await subscription.next()).done).toBe(false);
    // The stream is open: its span has not ended.
    expect(spansOf('SubscribeToTask', SpanKind.SERVER)).toEqual([]);
    await client.cancelTask({ id: taskId });
    while (!(await subscription.next()).done);
    await vi.waitFor(() => expect(spansOf('SubscribeToTask', SpanKind.SERVER)).toHaveLength(1), {
      timeout: 5_000,
      interval: 10,
    });
    const cancel = spansOf('CancelTask', SpanKind.SERVER)[0];
    expect(cancel?.attributes).toMatchObject({
      'a2a.method.name': 'CancelTask',
      'a2a.task.id': taskId,
      'a2a.task.state': 'TASK_STATE_CANCELED',
    });
    expect(spansOf('CancelTask', SpanKind.CLIENT)).toHaveLength(1);
    const subscribed = spansOf('SubscribeToTask', SpanKind.SERVER)[0];
    expect(subscribed?.attributes).toMatchObject({
      'a2a.task.id': taskId,
      'a2a.task.state': 'TASK_STATE_CANCELED',
      'a2a.stream.end_reason': 'canceled',
      'a2a.protocol.binding': binding,
    });
  });

  it('SendStreamingMessage: the span ends with the stream, with its events', async () => {
    let events = 0;
    for await (const _event of client.sendStreamingMessage({
      message: { parts: [{ text: 'stream 3' }] },
    })) {
      events++;
    }
    const span = await expectPair('SendStreamingMessage', {
      'a2a.task.state': 'TASK_STATE_COMPLETED',
      'a2a.stream.end_reason': 'completed',
      'a2a.stream.events': events,
    });
    expect(span.attributes['a2a.task.id']).toEqual(expect.any(String));
  });

  it('a stream the client leaves ends its span as client_gone', async () => {
    for await (const _event of client.sendStreamingMessage({
      message: { parts: [{ text: 'wait' }] },
    })) {
      break;
    }
    await vi.waitFor(
      () => expect(spansOf('SendStreamingMessage', SpanKind.SERVER)).toHaveLength(1),
      { timeout: 5_000, interval: 10 },
    );
    const span = spansOf('SendStreamingMessage', SpanKind.SERVER)[0];
    expect(span?.attributes['a2a.stream.end_reason']).toBe('client_gone');
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
    await client.cancelTask({ id: String(span?.attributes['a2a.task.id']) });
  });

  it('a failure: status ERROR and error.type the A2A error’s type, on both sides', async () => {
    await expect(client.getTask({ id: crypto.randomUUID() })).rejects.toThrow();
    const { server, client: caller } = await pairOf('GetTask');
    expect(server.status).toEqual({ code: SpanStatusCode.ERROR, message: 'TaskNotFoundError' });
    expect(server.attributes['error.type']).toBe('TaskNotFoundError');
    expect(caller.attributes['error.type']).toBe('TaskNotFoundError');
    expect(server.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
  });
});
