/**
 * One agent behind two doors (spec 5.1): a task created over HTTP+JSON is visible, listed,
 * cancelable and subscribable over JSON-RPC on the same server, and the reverse — with the same
 * tenant scoping and the same event sequence numbers on both.
 */

import { describe, expect, it } from 'vitest';
import { call } from '../../http/support.js';
import {
  createTask,
  createWaitingTask,
  describePayload,
  expectA2AError,
  freshName,
  get,
  payloadOf,
  post,
  readSse,
  sendBody,
  signal,
  sseEvents,
  useRestServer,
  VERSION,
  type SseEvent,
  type WireTask,
} from './support.js';

const server = useRestServer();

/** Calls JSON-RPC and returns its result, failing on an error. */
async function rpc(method: string, params: unknown): Promise<Record<string, unknown>> {
  const response = await call(server.rpc, method, params);
  expect(response.error, JSON.stringify(response.error)).toBeUndefined();
  return response.result as Record<string, unknown>;
}

/** The JSON-RPC results of an SSE response, with their ids. */
function rpcResultsOf(events: SseEvent[]): { id: string | undefined; result: unknown }[] {
  return events.map((event) => {
    const envelope = JSON.parse(event.data) as { jsonrpc: string; result: unknown };
    expect(envelope.jsonrpc).toBe('2.0');
    return { id: event.id, result: envelope.result };
  });
}

function rpcStream(method: string, params: unknown, headers: Record<string, string> = {}) {
  return fetch(server.rpc, {
    method: 'POST',
    headers: { ...VERSION, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
}

describe('REST → JSON-RPC', () => {
  it('a task created over REST is read and listed over JSON-RPC as REST reads it', async () => {
    const task = await createTask(server.base, 'echo crossing');
    const overRpc = await rpc('GetTask', { id: task.id });
    const overRest = await (await get(`${server.base}/tasks/${task.id}`)).json();
    expect(overRpc).toEqual(overRest);
    const listed = await rpc('ListTasks', { contextId: task.contextId });
    expect((listed.tasks as WireTask[]).map((t) => t.id)).toEqual([task.id]);
  });

  it('a task created over REST is canceled over JSON-RPC', async () => {
    const task = await createWaitingTask(server.base);
    const canceled = await rpc('CancelTask', { id: task.id });
    expect(canceled).toMatchObject({ id: task.id, status: { state: 'TASK_STATE_CANCELED' } });
    const read = (await (await get(`${server.base}/tasks/${task.id}`)).json()) as WireTask;
    expect(read.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('a REST stream and a JSON-RPC subscription carry the same events under the same ids', async () => {
    const go = freshName();
    const response = await post(`${server.base}/message:stream`, sendBody(`gate ${go} 2`));
    const iterator = sseEvents(response)[Symbol.asyncIterator]();
    const first = (await iterator.next()).value as SseEvent;
    const second = (await iterator.next()).value as SseEvent;
    const taskId = payloadOf(first).task?.id as string;
    const subscription = await rpcStream(
      'SubscribeToTask',
      { id: taskId },
      { 'last-event-id': '0' },
    );
    expect(subscription.status).toBe(200);
    const rpcEvents = readSse(subscription);
    signal(go).resolve();
    const rest: SseEvent[] = [first, second];
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) {
      rest.push(next.value);
    }
    expect(rest.map((event) => describePayload(payloadOf(event)))).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'artifact:chunk-0',
      'artifact:chunk-1+append',
      'status:TASK_STATE_COMPLETED',
    ]);
    expect(rpcResultsOf(await rpcEvents)).toEqual(
      rest.map((event) => ({ id: event.id, result: JSON.parse(event.data) as unknown })),
    );
  });

  it('a REST stream cut short resumes over JSON-RPC at the next event', async () => {
    const go = freshName();
    const controller = new AbortController();
    const response = await fetch(`${server.base}/message:stream`, {
      method: 'POST',
      headers: { ...VERSION, 'content-type': 'application/json' },
      body: JSON.stringify(sendBody(`gate ${go} 1`)),
      signal: controller.signal,
    });
    let first: SseEvent | undefined;
    for await (const event of sseEvents(response)) {
      first = event;
      break;
    }
    controller.abort();
    const taskId = payloadOf(first as SseEvent).task?.id as string;
    const resumed = await rpcStream('SubscribeToTask', { id: taskId }, { 'last-event-id': '1' });
    const pending = readSse(resumed);
    signal(go).resolve();
    expect(rpcResultsOf(await pending).map((event) => event.id)).toEqual(['2', '3', '4']);
  });

  it('a task of a REST tenant is visible over JSON-RPC with that tenant only', async () => {
    const task = await createTask(server.base, 'echo tenant', { prefix: '/acme' });
    expect(await rpc('GetTask', { id: task.id, tenant: 'acme' })).toMatchObject({ id: task.id });
    const untenanted = await call(server.rpc, 'GetTask', { id: task.id });
    expect(untenanted.error?.code).toBe(-32001);
    const other = await call(server.rpc, 'GetTask', { id: task.id, tenant: 'globex' });
    expect(other.error?.code).toBe(-32001);
  });
});

describe('JSON-RPC → REST', () => {
  it('a task created over JSON-RPC is read and listed over REST as JSON-RPC reads it', async () => {
    const sent = await rpc('SendMessage', sendBody('echo other way'));
    const task = sent.task as WireTask;
    const response = await get(`${server.base}/tasks/${task.id}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(await rpc('GetTask', { id: task.id }));
    const listed = (await (
      await get(`${server.base}/tasks?contextId=${task.contextId}`)
    ).json()) as { tasks: WireTask[] };
    expect(listed.tasks.map((t) => t.id)).toEqual([task.id]);
  });

  it('a task created over JSON-RPC is canceled over REST', async () => {
    const sent = await rpc('SendMessage', {
      ...sendBody('wait'),
      configuration: { returnImmediately: true },
    });
    const task = sent.task as WireTask;
    expect(task.status.state).toBe('TASK_STATE_WORKING');
    const response = await post(`${server.base}/tasks/${task.id}:cancel`, '{}');
    expect(response.status).toBe(200);
    expect(((await response.json()) as WireTask).status.state).toBe('TASK_STATE_CANCELED');
    expect(await rpc('GetTask', { id: task.id })).toMatchObject({
      status: { state: 'TASK_STATE_CANCELED' },
    });
  });

  it('a JSON-RPC stream of a tenant is replayed over REST under that tenant', async () => {
    const stream = await rpcStream('SendStreamingMessage', {
      ...sendBody('stream 2'),
      tenant: 'acme',
    });
    const rpcEvents = rpcResultsOf(await readSse(stream));
    const taskId = (rpcEvents[0]?.result as { task: WireTask }).task.id;
    const replay = await fetch(`${server.base}/acme/tasks/${taskId}:subscribe`, {
      headers: { ...VERSION, 'last-event-id': '0' },
    });
    expect(replay.status).toBe(200);
    const restEvents = await readSse(replay);
    expect(
      restEvents.map((event) => ({ id: event.id, result: JSON.parse(event.data) as unknown })),
    ).toEqual(rpcEvents);
    const untenanted = await get(`${server.base}/tasks/${taskId}`);
    await expectA2AError(untenanted, 404, 'TASK_NOT_FOUND');
  });

  it('answers the same A2A error on both doors', async () => {
    const task = await createTask(server.base, 'echo done');
    const rest = await post(`${server.base}/tasks/${task.id}:cancel`, '{}');
    const restBody = await expectA2AError(rest, 400, 'TASK_NOT_CANCELABLE');
    const overRpc = await call(server.rpc, 'CancelTask', { id: task.id });
    expect(overRpc.error?.code).toBe(-32002);
    expect(overRpc.error?.data).toEqual(restBody.error.details);
  });
});
