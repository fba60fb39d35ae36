/**
 * Every route of the HTTP+JSON binding (spec 11.3, from the proto's `google.api.http` mapping) at
 * the agent's own path, with and without the `/{tenant}/` prefix: what each answers, exactly, and
 * what an unknown route or a wrong method answers.
 */

import { describe, expect, it } from 'vitest';
import {
  createTask,
  createWaitingTask,
  describePayload,
  expectA2AError,
  expectStatusBody,
  expectError,
  get,
  payloadOf,
  post,
  readSse,
  sendBody,
  sseEvents,
  useRestServer,
  VERSION,
  type WireTask,
} from './support.js';

const server = useRestServer();

describe.each([
  ['without a tenant', ''],
  ['under /{tenant}/', '/acme'],
])('routes %s', (_name, prefix) => {
  const at = (path: string): string => `${server.base}${prefix}${path}`;

  it('POST /message:send answers the task, or the direct message', async () => {
    const response = await post(at('/message:send'), sendBody('echo hello'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = (await response.json()) as { task: WireTask };
    expect(Object.keys(body)).toEqual(['task']);
    expect(body.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(body.task.artifacts?.[0]?.parts).toEqual([{ text: 'hello' }]);

    const direct = await post(at('/message:send'), sendBody('reply hi'));
    expect(direct.status).toBe(200);
    const message = (await direct.json()) as { message: { role: string; parts: unknown[] } };
    expect(Object.keys(message)).toEqual(['message']);
    expect(message.message).toMatchObject({ role: 'ROLE_AGENT', parts: [{ text: 'hi' }] });
  });

  it('POST /message:stream answers an event stream of bare StreamResponses', async () => {
    const response = await post(at('/message:stream'), sendBody('stream 2'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = (await readSse(response)).map((event) => describePayload(payloadOf(event)));
    expect(events).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'artifact:chunk-0',
      'artifact:chunk-1+append',
      'status:TASK_STATE_COMPLETED',
    ]);
  });

  it('GET /tasks/{id} answers the task', async () => {
    const task = await createTask(server.base, 'echo got', { prefix });
    const response = await get(at(`/tasks/${task.id}`));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const read = (await response.json()) as WireTask;
    expect(read).toMatchObject({
      id: task.id,
      contextId: task.contextId,
      status: { state: 'TASK_STATE_COMPLETED' },
    });
    expect(read.artifacts?.[0]?.parts).toEqual([{ text: 'got' }]);
  });

  it('GET /tasks answers a ListTasksResponse holding the task', async () => {
    const task = await createTask(server.base, 'echo listed', { prefix });
    const response = await get(at(`/tasks?contextId=${task.contextId}`));
    expect(response.status).toBe(200);
    const list = (await response.json()) as {
      tasks: WireTask[];
      nextPageToken: string;
      pageSize: number;
      totalSize: number;
    };
    expect(list.tasks.map((t) => t.id)).toEqual([task.id]);
    expect(list).toMatchObject({ nextPageToken: '', pageSize: 50, totalSize: 1 });
  });

  it('POST /tasks/{id}:cancel cancels a working task and answers it', async () => {
    const task = await createWaitingTask(server.base, prefix);
    expect(task.status.state).toBe('TASK_STATE_WORKING');
    const response = await fetch(at(`/tasks/${task.id}:cancel`), {
      method: 'POST',
      headers: VERSION,
    });
    expect(response.status).toBe(200);
    const canceled = (await response.json()) as WireTask;
    expect(canceled).toMatchObject({ id: task.id, status: { state: 'TASK_STATE_CANCELED' } });
    const again = await fetch(at(`/tasks/${task.id}:cancel`), { method: 'POST', headers: VERSION });
    await expectA2AError(again, 400, 'TASK_NOT_CANCELABLE');
  });

  it.each(['GET', 'POST'])(
    '%s /tasks/{id}:subscribe streams the task from its current state',
    async (method) => {
      const task = await createWaitingTask(server.base, prefix);
      const response = await fetch(at(`/tasks/${task.id}:subscribe`), {
        method,
        headers: VERSION,
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      const seen: string[] = [];
      for await (const event of sseEvents(response)) {
        const payload = payloadOf(event);
        seen.push(describePayload(payload));
        if (seen.length === 1) {
          expect(payload.task?.id).toBe(task.id);
          const cancel = await fetch(at(`/tasks/${task.id}:cancel`), {
            method: 'POST',
            headers: VERSION,
          });
          expect(cancel.status).toBe(200);
        }
      }
      expect(seen).toEqual(['task:TASK_STATE_WORKING', 'status:TASK_STATE_CANCELED']);
    },
  );

  describe('push notification configs (not supported by the agent)', () => {
    it('POST /tasks/{id}/pushNotificationConfigs', async () => {
      const task = await createTask(server.base, 'echo p', { prefix });
      const response = await post(at(`/tasks/${task.id}/pushNotificationConfigs`), {
        url: 'https://client.example.com/hook',
      });
      const body = await expectA2AError(response, 400, 'PUSH_NOTIFICATION_NOT_SUPPORTED');
      expect(body.error.status).toBe('FAILED_PRECONDITION');
    });

    it('GET /tasks/{id}/pushNotificationConfigs/{configId}', async () => {
      const task = await createTask(server.base, 'echo p', { prefix });
      const response = await get(at(`/tasks/${task.id}/pushNotificationConfigs/c1`));
      await expectA2AError(response, 400, 'PUSH_NOTIFICATION_NOT_SUPPORTED');
    });

    it('GET /tasks/{id}/pushNotificationConfigs', async () => {
      const task = await createTask(server.base, 'echo p', { prefix });
      const response = await get(at(`/tasks/${task.id}/pushNotificationConfigs`));
      await expectA2AError(response, 400, 'PUSH_NOTIFICATION_NOT_SUPPORTED');
    });

    it('DELETE /tasks/{id}/pushNotificationConfigs/{configId}', async () => {
      const task = await createTask(server.base, 'echo p', { prefix });
      const response = await fetch(at(`/tasks/${task.id}/pushNotificationConfigs/c1`), {
        method: 'DELETE',
        headers: VERSION,
      });
      await expectA2AError(response, 400, 'PUSH_NOTIFICATION_NOT_SUPPORTED');
    });
  });

  it('GET /extendedAgentCard answers the extended card with the interfaces', async () => {
    const response = await get(at('/extendedAgentCard'));
    expect(response.status).toBe(200);
    const card = (await response.json()) as {
      name: string;
      supportedInterfaces: { url: string; protocolBinding: string; protocolVersion: string }[];
      skills: { id: string }[];
    };
    expect(card.name).toBe('REST test agent (extended)');
    expect(card.skills.map((skill) => skill.id)).toEqual(['secret']);
    expect(card.supportedInterfaces).toEqual([
      { url: `${server.base}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: server.base, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ]);
  });
});

const UNKNOWN_PATHS = [
  ['a path no route has', '/nothing/here'],
  ['a task sub-resource that does not exist', '/tasks/t1/history'],
  ['a path beside the agent path', '/../other/message:send'],
] as const;

const WRONG_METHODS = [
  ['GET', '/message:send', 'POST, OPTIONS'],
  ['PUT', '/message:stream', 'POST, OPTIONS'],
  ['DELETE', '/tasks/t1', 'GET, HEAD, OPTIONS'],
  ['POST', '/tasks', 'GET, HEAD, OPTIONS'],
  // GET also answers there: GetTask of the task "t1:cancel" (see below).
  ['PUT', '/tasks/t1:cancel', 'POST, GET, HEAD, OPTIONS'],
  ['DELETE', '/tasks/t1:subscribe', 'GET, POST, HEAD, OPTIONS'],
  ['PATCH', '/tasks/t1/pushNotificationConfigs', 'POST, GET, HEAD, OPTIONS'],
  ['POST', '/tasks/t1/pushNotificationConfigs/c1', 'GET, HEAD, DELETE, OPTIONS'],
  ['POST', '/extendedAgentCard', 'GET, HEAD, OPTIONS'],
  ['GET', '/acme/message:send', 'POST, OPTIONS'],
] as const;

describe('unknown routes and wrong methods', () => {
  it.each(UNKNOWN_PATHS)('answers 404 NOT_FOUND for %s', async (_case, path) => {
    const response = await get(`${server.base}${path}`);
    const body = await expectStatusBody(response, 404);
    expect(body.error.status).toBe('NOT_FOUND');
  });

  it.each(WRONG_METHODS)('answers %s %s with 405 and Allow: %s', async (method, path, allow) => {
    const response = await fetch(`${server.base}${path}`, { method, headers: VERSION });
    expect(response.headers.get('allow')).toBe(allow);
    const body = await expectStatusBody(response, 405);
    // google.rpc.Code has no name for it: UNIMPLEMENTED, as transcoding gateways answer.
    expect(body.error.status).toBe('UNIMPLEMENTED');
  });

  it.each([
    ...UNKNOWN_PATHS.map(([, path]) => ['GET', path] as const),
    ...WRONG_METHODS.map(([method, path]) => [method, path] as const),
  ])('answers %s %s with a details array like every other error', async (method, path) => {
    const response = await fetch(`${server.base}${path}`, { method, headers: VERSION });
    await expectError(response, response.status === 404 ? 404 : 405);
  });

  it('reads GET /tasks/t1:cancel as GetTask of the task "t1:cancel" (ids may hold a colon)', async () => {
    const response = await get(`${server.base}/tasks/t1:cancel`);
    await expectA2AError(response, 404, 'TASK_NOT_FOUND');
  });
});
