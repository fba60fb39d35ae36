/**
 * Request bodies of the HTTP+JSON binding: the media types accepted and refused, empty bodies,
 * malformed and oversized bodies, proto field names (ProtoJSON parsers accept both spellings),
 * and a body that names a path field with another value.
 */

import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  createTask,
  createWaitingTask,
  describePayload,
  errorInfoOf,
  expectA2AError,
  expectError,
  expectInvalidParams,
  freshName,
  get,
  messageId,
  payloadOf,
  post,
  readSse,
  sendBody,
  signal,
  useRestServer,
  VERSION,
  type WireTask,
} from './support.js';

const MAX_BODY_BYTES = 4096;

const server = useRestServer({ maxBodyBytes: MAX_BODY_BYTES });

const bytes = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

/** A stream where an error was expected: closed at once, so the test fails instead of hanging. */
async function failFastOnStream(response: Response): Promise<void> {
  if (response.headers.get('content-type') !== 'text/event-stream') return;
  await response.body?.cancel();
  expect.fail(`expected an error, got a ${response.status} event stream`);
}

async function taskOf(response: Response): Promise<WireTask> {
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return (JSON.parse(text) as { task: WireTask }).task;
}

describe('request media types', () => {
  it.each([
    'application/a2a+json',
    'application/json',
    'application/json; charset=utf-8',
    'application/a2a+json; charset=UTF-8',
    'Application/JSON',
  ])('accepts a POST body in %s', async (contentType) => {
    const response = await post(`${server.base}/message:send`, sendBody('echo typed'), {
      'content-type': contentType,
    });
    expect((await taskOf(response)).status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('accepts a JSON body without Content-Type', async () => {
    const response = await fetch(`${server.base}/message:send`, {
      method: 'POST',
      headers: VERSION,
      body: bytes(sendBody('echo untyped')),
    });
    expect((await taskOf(response)).artifacts?.[0]?.parts).toEqual([{ text: 'untyped' }]);
  });

  it.each([
    'text/plain',
    'text/plain; charset=utf-8',
    'application/xml',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
  ])('refuses a POST body in %s with 415 CONTENT_TYPE_NOT_SUPPORTED', async (contentType) => {
    const response = await post(`${server.base}/message:send`, sendBody('echo no'), {
      'content-type': contentType,
    });
    const body = await expectA2AError(response, 415, 'CONTENT_TYPE_NOT_SUPPORTED');
    expect(body.error.message).toContain(contentType);
    expect(body.error.message).toContain('application/a2a+json');
  });

  it.each(['/message:stream', '/tasks/t1:cancel', '/tasks/t1/pushNotificationConfigs'])(
    'refuses text/plain on POST %s with 415 as well',
    async (path) => {
      const response = await post(`${server.base}${path}`, '{}', { 'content-type': 'text/plain' });
      await expectA2AError(response, 415, 'CONTENT_TYPE_NOT_SUPPORTED');
    },
  );

  // The POST route of SubscribeToTask reads its body like every POST (the proto maps only GET).
  it('refuses text/plain on POST /tasks/{id}:subscribe with 415 as well', async () => {
    const response = await post(`${server.base}/tasks/t1:subscribe`, 'hello', {
      'content-type': 'text/plain',
    });
    await expectA2AError(response, 415, 'CONTENT_TYPE_NOT_SUPPORTED');
  });

  it('accepts Content-Type: application/json on a GET', async () => {
    const task = await createTask(server.base, 'echo g');
    const response = await get(`${server.base}/tasks/${task.id}`, {
      'content-type': 'application/json',
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as WireTask).id).toBe(task.id);
  });
});

describe('empty bodies', () => {
  it.each([
    ['no body and no Content-Type', undefined, undefined],
    ['an empty body with Content-Type', 'application/a2a+json', ''],
    ['{}', 'application/json', '{}'],
    ['whitespace', 'application/json', ' \n'],
  ])('POST /tasks/{id}:cancel with %s cancels the task', async (_case, contentType, body) => {
    const task = await createWaitingTask(server.base);
    const headers: Record<string, string> = { ...VERSION };
    if (contentType !== undefined) headers['content-type'] = contentType;
    const init: RequestInit = { method: 'POST', headers };
    if (body !== undefined) init.body = body;
    const response = await fetch(`${server.base}/tasks/${task.id}:cancel`, init);
    expect(response.status).toBe(200);
    expect(((await response.json()) as WireTask).status.state).toBe('TASK_STATE_CANCELED');
  });

  it.each([
    ['no body and no Content-Type', undefined, undefined],
    ['an empty body with Content-Type', 'application/a2a+json', ''],
    ['{}', 'application/json', '{}'],
  ])('POST /tasks/{id}:subscribe with %s subscribes', async (_case, contentType, body) => {
    const task = await createWaitingTask(server.base);
    const headers: Record<string, string> = { ...VERSION };
    if (contentType !== undefined) headers['content-type'] = contentType;
    const init: RequestInit = { method: 'POST', headers };
    if (body !== undefined) init.body = body;
    const response = await fetch(`${server.base}/tasks/${task.id}:subscribe`, init);
    expect(response.status).toBe(200);
    const pending = readSse(response);
    await post(`${server.base}/tasks/${task.id}:cancel`, '{}');
    const events = (await pending).map((event) => describePayload(payloadOf(event)));
    expect(events).toEqual(['task:TASK_STATE_WORKING', 'status:TASK_STATE_CANCELED']);
  });

  it('refuses an empty body on POST /message:send naming the missing message', async () => {
    const response = await post(`${server.base}/message:send`, '');
    expect(await expectInvalidParams(response)).toEqual(['message']);
  });
});

describe('malformed bodies', () => {
  it.each([
    ['truncated JSON', '{"message":'],
    ['a trailing comma', '{"message":{},}'],
    ['single quotes', "{'message':{}}"],
    ['two documents', '{}{}'],
  ])('answers 400 for %s', async (_case, text) => {
    const response = await post(`${server.base}/message:send`, text);
    const body = await expectError(response, 400);
    expect(body.error.status).toBe('INVALID_ARGUMENT');
    expect(body.error.message).toMatch(/JSON/);
  });

  it.each([
    ['an array', '[{"message":{}}]'],
    ['a string', '"hello"'],
    ['a number', '42'],
    ['null', 'null'],
    ['true', 'true'],
  ])('answers 400 for a JSON body that is %s, not an object', async (_case, text) => {
    const response = await post(`${server.base}/message:send`, text);
    const body = await expectError(response, 400);
    expect(body.error.message).toMatch(/object/);
  });

  it('answers 400 for a JSON array body on :cancel', async () => {
    const task = await createWaitingTask(server.base);
    const response = await post(`${server.base}/tasks/${task.id}:cancel`, '[]');
    await expectError(response, 400);
    const still = (await (await get(`${server.base}/tasks/${task.id}`)).json()) as WireTask;
    expect(still.status.state).toBe('TASK_STATE_WORKING');
    await post(`${server.base}/tasks/${task.id}:cancel`, '{}');
  });

  it('names every invalid field of the message, paths relative to the body', async () => {
    const response = await post(`${server.base}/message:send`, {
      message: { messageId: messageId(), role: 'ROLE_BOSS', parts: 'hi' },
    });
    expect((await expectInvalidParams(response)).sort()).toEqual(['message.parts', 'message.role']);
  });
});

describe('body size limit', () => {
  const big = (): string => JSON.stringify(sendBody('x'.repeat(MAX_BODY_BYTES)));

  it('refuses a body over maxBodyBytes with 413, Connection: close, and keeps serving', async () => {
    const response = await post(`${server.base}/message:send`, big());
    expect(response.headers.get('connection')).toBe('close');
    const body = await expectError(response, 413);
    expect(body.error.message).toBe('Request body exceeds the 4 KiB limit');
    const next = await createTask(server.base, 'echo still here');
    expect(next.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('refuses a chunked body as soon as it crosses the limit', async () => {
    const chunks = [
      new TextEncoder().encode('{"message":{"parts":[{"text":"'),
      new Uint8Array(2 * MAX_BODY_BYTES).fill(0x61),
    ];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const chunk = chunks.shift();
        if (chunk === undefined) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const response = await fetch(`${server.base}/message:send`, {
      method: 'POST',
      headers: { ...VERSION, 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    });
    expect(response.headers.get('connection')).toBe('close');
    await expectError(response, 413);
  });

  it('closes the connection after the 413, even when the client asked to keep it alive', async () => {
    const url = new URL(`${server.base}/message:send`);
    const closed = await new Promise<{ status: number | undefined; closed: boolean }>(
      (resolve, reject) => {
        const req = httpRequest(url, {
          method: 'POST',
          headers: { ...VERSION, 'content-type': 'application/json', connection: 'keep-alive' },
          agent: false,
        });
        req.on('error', reject);
        req.on('response', (res) => {
          res.resume();
          res.socket.once('close', () => resolve({ status: res.statusCode, closed: true }));
        });
        req.end(big());
      },
    );
    expect(closed).toEqual({ status: 413, closed: true });
  });

  it('accepts a body just under the limit', async () => {
    const base = JSON.stringify(sendBody('echo '));
    const text = 'y'.repeat(MAX_BODY_BYTES - base.length - 64);
    const response = await post(`${server.base}/message:send`, sendBody(`echo ${text}`));
    expect((await taskOf(response)).status.state).toBe('TASK_STATE_COMPLETED');
  });
});

describe('proto field names in the body', () => {
  it('honours message_id, context_id and task_id in the message', async () => {
    const contextId = `ctx-proto-${Date.now()}`;
    const first = await post(`${server.base}/message:send`, {
      message: {
        message_id: messageId(),
        context_id: contextId,
        role: 'ROLE_USER',
        parts: [{ text: 'ask' }],
      },
    });
    const task = await taskOf(first);
    expect(task.contextId).toBe(contextId);
    const second = await post(`${server.base}/message:send`, {
      message: {
        message_id: messageId(),
        context_id: contextId,
        task_id: task.id,
        role: 'ROLE_USER',
        parts: [{ text: 'ask' }],
      },
    });
    const continued = await taskOf(second);
    expect(continued.id).toBe(task.id);
  });

  it('honours history_length and return_immediately in the configuration', async () => {
    const started = freshName();
    const pending = post(`${server.base}/message:send`, {
      ...sendBody(`wait ${started}`),
      configuration: { history_length: 0, return_immediately: true },
    });
    // Honoured, the answer left when the task was created; ignored, it waits for the end of
    // the task: cancel it so that the test ends either way.
    const taskId = await signal(started).promise;
    await post(`${server.base}/tasks/${taskId}:cancel`, '{}');
    const task = await taskOf(await pending);
    expect(task.status.state).not.toBe('TASK_STATE_CANCELED');
    expect(task.history ?? []).toEqual([]);
  });

  it('honours the JSON names historyLength and returnImmediately (the reference)', async () => {
    const response = await post(`${server.base}/message:send`, {
      ...sendBody('wait'),
      configuration: { historyLength: 0, returnImmediately: true },
    });
    const task = await taskOf(response);
    expect(task.status.state).toBe('TASK_STATE_WORKING');
    expect(task.history ?? []).toEqual([]);
    await post(`${server.base}/tasks/${task.id}:cancel`, '{}');
  });
});

describe('a body that disagrees with the path', () => {
  it('refuses POST /tasks/A:cancel with {"id":"B"} (400 naming id) and cancels nothing', async () => {
    const task = await createWaitingTask(server.base);
    const other = await createWaitingTask(server.base);
    const response = await post(`${server.base}/tasks/${task.id}:cancel`, { id: other.id });
    expect(await expectInvalidParams(response)).toEqual(['id']);
    for (const id of [task.id, other.id]) {
      const read = (await (await get(`${server.base}/tasks/${id}`)).json()) as WireTask;
      expect(read.status.state).toBe('TASK_STATE_WORKING');
    }
    const same = await post(`${server.base}/tasks/${task.id}:cancel`, { id: task.id });
    expect(same.status).toBe(200);
    await post(`${server.base}/tasks/${other.id}:cancel`, '{}');
  });

  it('refuses a push config whose taskId (either spelling) disagrees with the path', async () => {
    const task = await createTask(server.base, 'echo p');
    for (const field of ['taskId', 'task_id']) {
      const response = await post(`${server.base}/tasks/${task.id}/pushNotificationConfigs`, {
        [field]: 'another-task',
        url: 'https://client.example.com/hook',
      });
      expect(await expectInvalidParams(response)).toEqual([field]);
    }
  });

  it('refuses a body tenant that disagrees with the tenant of the path', async () => {
    const response = await post(`${server.base}/acme/message:send`, {
      ...sendBody('echo t'),
      tenant: 'other',
    });
    expect(await expectInvalidParams(response)).toEqual(['tenant']);
    const same = await post(`${server.base}/acme/message:send`, {
      ...sendBody('echo t'),
      tenant: 'acme',
    });
    expect(same.status).toBe(200);
  });

  it('refuses POST /tasks/A:subscribe with {"id":"B"} (400 naming id)', async () => {
    const task = await createTask(server.base, 'ask');
    const response = await post(`${server.base}/tasks/${task.id}:subscribe`, { id: 'B' });
    await failFastOnStream(response);
    expect(await expectInvalidParams(response)).toEqual(['id']);
  });

  it('refuses POST /tasks/{id}:subscribe with invalid JSON (400)', async () => {
    const task = await createTask(server.base, 'ask');
    const response = await post(`${server.base}/tasks/${task.id}:subscribe`, '{"id":');
    await failFastOnStream(response);
    await expectError(response, 400);
  });

  it('reports TaskNotFound for the path id when the body agrees', async () => {
    const response = await post(`${server.base}/tasks/missing:cancel`, { id: 'missing' });
    const body = await expectA2AError(response, 404, 'TASK_NOT_FOUND');
    expect(errorInfoOf(body).metadata?.taskId).toBe('missing');
  });
});
