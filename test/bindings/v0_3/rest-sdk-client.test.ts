/**
 * HTTP+JSON 0.3 (`/v1/...`) of a `--compat 0.3` Tandem server, driven by the official JS SDK's
 * 0.3 REST client (`a2a-sdk-v03`'s `RestTransport`, which sends and reads the ProtoJSON of the 0.3
 * proto): send, stream, get, cancel, resubscribe, the push config operations, the extended card
 * and typed errors. Also the bodies the 0.3 specification shows (kind-tagged), and that without
 * `--compat` there is no `/v1`.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestTransport, TaskNotCancelableError, TaskNotFoundError } from 'a2a-sdk-v03/client';
import type {
  AgentCard as V03Card,
  Message as V03Message,
  Task as V03Task,
  TaskStatusUpdateEvent as V03StatusUpdate,
} from 'a2a-sdk-v03';
import {
  createNodeServer,
  createPushNotifier,
  createRequestHandler,
  createTaskRuntime,
  type A2ANodeServer,
  type TaskRuntime,
} from '../../../src/server.js';
import { MemoryTaskStore } from '../../../src/stores.js';
import { compatV03 } from '../../../src/server-compat.js';
import { clientTestAgent } from '../../support/agents.js';

let server: A2ANodeServer;
let plain: A2ANodeServer;
let runtime: TaskRuntime;
let base: string;
let plainBase: string;
let sdk: RestTransport;

beforeAll(async () => {
  runtime = createTaskRuntime({ store: new MemoryTaskStore() });
  await runtime.start();
  const push = createPushNotifier({ runtime, allow: ['127.0.0.1'], compat: compatV03() });
  server = createNodeServer({
    agents: [
      { path: '', handler: createRequestHandler({ agent: clientTestAgent, runtime, push }) },
    ],
    heartbeatMs: 0,
    compat: compatV03(),
  });
  base = (await server.listen({ port: 0, host: '127.0.0.1' })).url.replace(/\/$/, '');
  plain = createNodeServer({
    agents: [{ path: '', handler: createRequestHandler({ agent: clientTestAgent }) }],
    heartbeatMs: 0,
  });
  plainBase = (await plain.listen({ port: 0, host: '127.0.0.1' })).url.replace(/\/$/, '');
  const card = (await (await fetch(`${base}/.well-known/agent-card.json`)).json()) as V03Card;
  const rest = card.additionalInterfaces?.find((i) => i.transport === 'HTTP+JSON');
  sdk = new RestTransport({ endpoint: rest?.url ?? '' });
});

afterAll(async () => {
  await server.shutdown({ deadlineMs: 500 });
  await plain.shutdown({ deadlineMs: 500 });
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

describe('the card with --compat 0.3', () => {
  it('lists the HTTP+JSON 0.3 interface at the HTTP+JSON URL', async () => {
    const card = (await (await fetch(`${base}/.well-known/agent-card.json`)).json()) as V03Card & {
      supportedInterfaces: unknown[];
    };
    expect(card.additionalInterfaces).toContainEqual({ url: base, transport: 'HTTP+JSON' });
    expect(card.supportedInterfaces).toContainEqual({
      url: base,
      protocolBinding: 'HTTP+JSON',
      protocolVersion: '0.3',
    });
  });
});

describe('the official 0.3 REST client', () => {
  it('sends a message and gets the completed task, then gets it', async () => {
    const task = (await sdk.sendMessage({
      message: message('echo hi'),
      configuration: { blocking: true },
    })) as V03Task;
    expect(task.kind).toBe('task');
    expect(task.status.state).toBe('completed');
    expect(task.artifacts?.[0]?.parts).toEqual([{ kind: 'text', text: 'hi' }]);
    expect(task.history?.[0]).toMatchObject({ kind: 'message', role: 'user' });
    const got = await sdk.getTask({ id: task.id, historyLength: 1 });
    expect(got).toMatchObject({ kind: 'task', id: task.id, status: { state: 'completed' } });
    expect(got.history).toHaveLength(1);
  });

  it('gets a direct reply as a 0.3 message', async () => {
    const reply = await sdk.sendMessage({ message: message('reply yo') });
    expect(reply).toMatchObject({
      kind: 'message',
      role: 'agent',
      parts: [{ kind: 'text', text: 'yo' }],
    });
  });

  it('continues an input-required task', async () => {
    const asked = (await sdk.sendMessage({
      message: message('ask'),
      configuration: { blocking: true },
    })) as V03Task;
    expect(asked.status.state).toBe('input-required');
    const done = (await sdk.sendMessage({
      message: message('Ada', { taskId: asked.id, contextId: asked.contextId }),
      configuration: { blocking: true },
    })) as V03Task;
    expect(done.status.state).toBe('completed');
  });

  it('streams, final on the last status update', async () => {
    const events: unknown[] = [];
    for await (const event of sdk.sendMessageStream({ message: message('stream 3') })) {
      events.push(event);
    }
    const kinds = events.map((e) => (e as { kind: string }).kind);
    expect(kinds[0]).toBe('task');
    expect(kinds.filter((k) => k === 'artifact-update')).toHaveLength(3);
    expect(events.at(-1) as V03StatusUpdate).toMatchObject({
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
    expect(task.status.state).not.toBe('completed');
    const stream = sdk.resubscribeTask({ id: task.id });
    const first = await stream.next();
    expect((first.value as { kind: string }).kind).toBe('task');
    const canceled = await sdk.cancelTask({ id: task.id });
    expect(canceled.status.state).toBe('canceled');
    const rest: unknown[] = [];
    for await (const event of { [Symbol.asyncIterator]: () => stream }) rest.push(event);
    expect(rest.at(-1)).toMatchObject({
      kind: 'status-update',
      final: true,
      status: { state: 'canceled' },
    });
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
      pushNotificationConfig: {
        id: 'hook-1',
        url: 'http://127.0.0.1:9/hook',
        token: 'tok',
        authentication: { schemes: ['Bearer'], credentials: 'secret' },
      },
    });
    expect(set).toMatchObject({
      taskId: task.id,
      pushNotificationConfig: { id: 'hook-1', url: 'http://127.0.0.1:9/hook', token: 'tok' },
    });
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

  it('gets the extended card at /v1/card', async () => {
    const card = await sdk.getExtendedAgentCard();
    expect(card).toMatchObject({ name: 'Client test agent (extended)', protocolVersion: '0.3.0' });
  });
});

describe('HTTP+JSON 0.3 bodies as the specification shows them', () => {
  it('reads a kind-tagged message', async () => {
    const response = await fetch(`${base}/v1/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: message('echo spec'), configuration: { blocking: true } }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { task: { id: string; status: { state: string } } };
    expect(body.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('answers what 1.0 cannot hold with 400 and -32602 naming the field', async () => {
    const response = await fetch(`${base}/v1/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        message: { messageId: 'm', role: 'ROLE_UNSPECIFIED', content: [{ text: 'x' }] },
      }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { code: number; message: string };
    expect(body.code).toBe(-32602);
    expect(body.message).toContain('params.message.role');
  });
});

describe('without --compat', () => {
  it('has no /v1 routes: /v1/card is 404, /v1/message:send is the 1.0 route of tenant "v1"', async () => {
    expect((await fetch(`${plainBase}/v1/card`)).status).toBe(404);
    const response = await fetch(`${plainBase}/v1/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: { messageId: 'm', role: 'ROLE_USER', content: [] } }),
    });
    // A 1.0 google.rpc.Status: the body is read as a 1.0 request, not as 0.3.
    const body = (await response.json()) as { error?: { status: string }; code?: unknown };
    expect(body.error?.status).toEqual(expect.any(String));
    expect(body.code).toBeUndefined();
    const card = (await (await fetch(`${plainBase}/.well-known/agent-card.json`)).json()) as Record<
      string,
      unknown
    >;
    expect(card.additionalInterfaces).toBeUndefined();
    expect(card.protocolVersion).toBeUndefined();
  });
});
