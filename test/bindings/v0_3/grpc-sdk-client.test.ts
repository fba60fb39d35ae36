/**
 * gRPC 0.3: `a2a.v1.A2AService` of the 0.3 proto on the gRPC port beside the 1.0 service
 * (`createGrpcServer({ compat: compatV03() })`), driven by the official JS SDK's 0.3 gRPC
 * client (`a2a-sdk-v03/client/grpc`): send, stream, get, cancel, resubscribe, push configs, the
 * extended card and typed errors; and the 1.0 service still answers as before.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTransport } from 'a2a-sdk-v03/client/grpc';
import { TaskNotCancelableError, TaskNotFoundError } from 'a2a-sdk-v03/client';
import type { Message as V03Message, Task as V03Task } from 'a2a-sdk-v03';
import {
  createPushNotifier,
  createRequestHandler,
  createTaskRuntime,
  type TaskRuntime,
} from '../../../src/server.js';
import { MemoryTaskStore } from '../../../src/stores.js';
import { compatV03 } from '../../../src/server-compat.js';
import { createGrpcServer, type A2AGrpcServer } from '../../../src/server-grpc.js';
import { clientTestAgent } from '../../support/agents.js';

let runtime: TaskRuntime;
let server: A2AGrpcServer;
let sdk: GrpcTransport;

beforeAll(async () => {
  runtime = createTaskRuntime({ store: new MemoryTaskStore() });
  await runtime.start();
  const push = createPushNotifier({ runtime, allow: ['127.0.0.1'], compat: compatV03() });
  server = createGrpcServer({
    agents: [
      { path: '', handler: createRequestHandler({ agent: clientTestAgent, runtime, push }) },
    ],
    compat: compatV03(),
  });
  const { address } = await server.listen();
  sdk = new GrpcTransport({ endpoint: address });
});

afterAll(async () => {
  await server.shutdown({ deadlineMs: 500 });
  await runtime.close();
});

function message(text: string, extra: Partial<V03Message> = {}): V03Message {
  return {
    kind: 'message',
    role: 'user',
    messageId: crypto.randomUUID(),
    parts: [{ kind: 'text', text }],
    ...extra,
  };
}

describe('the official 0.3 gRPC client', () => {
  it('lists the gRPC 0.3 interface beside the 1.0 one', () => {
    const interfaces = server.interfacesOf('')('http://127.0.0.1/');
    expect(interfaces.map((i) => i.protocolVersion)).toEqual(['1.0', '0.3']);
  });

  it('sends a message and gets the completed task, then gets it', async () => {
    const task = (await sdk.sendMessage({
      message: message('echo hi'),
      configuration: { blocking: true },
    })) as V03Task;
    expect(task.kind).toBe('task');
    expect(task.status.state).toBe('completed');
    expect(task.artifacts?.[0]?.parts).toEqual([{ kind: 'text', text: 'hi' }]);
    const got = await sdk.getTask({ id: task.id, historyLength: 1 });
    expect(got).toMatchObject({ kind: 'task', id: task.id, status: { state: 'completed' } });
  });

  it('gets a direct reply as a 0.3 message', async () => {
    expect(await sdk.sendMessage({ message: message('reply yo') })).toMatchObject({
      kind: 'message',
      role: 'agent',
      parts: [{ kind: 'text', text: 'yo' }],
    });
  });

  it('streams, final on the last status update', async () => {
    const events: unknown[] = [];
    for await (const event of sdk.sendMessageStream({ message: message('stream 3') })) {
      events.push(event);
    }
    const kinds = events.map((e) => (e as { kind: string }).kind);
    expect(kinds[0]).toBe('task');
    expect(kinds.filter((k) => k === 'artifact-update')).toHaveLength(3);
    expect(events.at(-1)).toMatchObject({
      kind: 'status-update',
      final: true,
      status: { state: 'completed' },
    });
  });

  it('resubscribes to a running task and cancels it', async () => {
    const task = (await sdk.sendMessage({
      message: message('wait'),
      configuration: { blocking: false },
    })) as V03Task;
    const stream = sdk.resubscribeTask({ id: task.id });
    const first = await stream.next();
    expect((first.value as { kind: string }).kind).toBe('task');
    const canceled = await sdk.cancelTask({ id: task.id });
    expect(canceled.status.state).toBe('canceled');
    const rest: unknown[] = [];
    for await (const event of { [Symbol.asyncIterator]: () => stream }) rest.push(event);
    expect(rest.at(-1)).toMatchObject({ kind: 'status-update', status: { state: 'canceled' } });
  });

  it('gets typed 0.3 errors', async () => {
    await expect(sdk.getTask({ id: 'no-such-task' })).rejects.toBeInstanceOf(TaskNotFoundError);
    const done = (await sdk.sendMessage({
      message: message('echo x'),
      configuration: { blocking: true },
    })) as V03Task;
    await expect(sdk.cancelTask({ id: done.id })).rejects.toBeInstanceOf(TaskNotCancelableError);
  });

  it('sets, gets, lists and deletes push configs', async () => {
    const task = (await sdk.sendMessage({
      message: message('ask'),
      configuration: { blocking: true },
    })) as V03Task;
    const set = await sdk.setTaskPushNotificationConfig({
      taskId: task.id,
      pushNotificationConfig: { id: 'hook-1', url: 'http://127.0.0.1:9/hook', token: 'tok' },
    });
    expect(set).toMatchObject({ taskId: task.id, pushNotificationConfig: { id: 'hook-1' } });
    const got = await sdk.getTaskPushNotificationConfig({
      id: task.id,
      pushNotificationConfigId: 'hook-1',
    });
    expect(got.pushNotificationConfig).toMatchObject({ id: 'hook-1', token: 'tok' });
    const listed = await sdk.listTaskPushNotificationConfig({ id: task.id });
    expect(listed.map((c) => c.pushNotificationConfig.id)).toEqual(['hook-1']);
    await sdk.deleteTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'hook-1' });
    expect(await sdk.listTaskPushNotificationConfig({ id: task.id })).toEqual([]);
  });

  it('gets the extended card', async () => {
    const card = await sdk.getExtendedAgentCard();
    expect(card).toMatchObject({ name: 'Client test agent (extended)', protocolVersion: '0.3.0' });
  });
});

describe('without compat', () => {
  it('serves no 0.3 service and lists only the 1.0 interface', async () => {
    const plain = createGrpcServer({
      agents: [{ path: '', handler: createRequestHandler({ agent: clientTestAgent }) }],
    });
    const { address } = await plain.listen();
    try {
      expect(
        plain
          .interfacesOf('')('http://127.0.0.1/')
          .map((i) => i.protocolVersion),
      ).toEqual(['1.0']);
      const client = new GrpcTransport({ endpoint: address });
      await expect(client.getTask({ id: 'x' })).rejects.toThrow(/\b12\b|UNIMPLEMENTED/);
    } finally {
      await plain.shutdown({ deadlineMs: 500 });
    }
  });
});
