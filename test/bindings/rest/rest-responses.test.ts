/**
 * Responses of the HTTP+JSON binding: the media type chosen from `Accept`, the
 * `google.rpc.Status` error of each A2A error with the HTTP status of spec 5.4 and its
 * `ErrorInfo` (spec 11.6), the version check of spec 3.6.2, and `A2A-Extensions` echoed.
 */

import { describe, expect, it } from 'vitest';
import {
  createTask,
  createWaitingTask,
  errorInfoOf,
  expectA2AError,
  expectError,
  expectInvalidParams,
  get,
  messageId,
  OPTIONAL_EXTENSION,
  post,
  readSse,
  sendBody,
  useRestServer,
  VERSION,
} from './support.js';

const server = useRestServer();

describe('response media type', () => {
  it.each([
    [undefined, 'application/json'],
    ['application/json', 'application/json'],
    ['*/*', 'application/json'],
    ['application/a2a+json', 'application/a2a+json'],
    ['application/a2a+json; q=0.9, application/json', 'application/a2a+json'],
    ['application/json, Application/A2A+JSON', 'application/a2a+json'],
    ['text/html', 'application/json'],
  ])('Accept: %s → Content-Type: %s, for answers and errors', async (accept, expected) => {
    const headers: Record<string, string> = accept === undefined ? {} : { accept };
    const task = await createTask(server.base, 'echo m');
    const ok = await get(`${server.base}/tasks/${task.id}`, headers);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe(expected);
    const sent = await post(`${server.base}/message:send`, sendBody('echo m'), headers);
    expect(sent.status).toBe(200);
    expect(sent.headers.get('content-type')).toBe(expected);
    const missing = await get(`${server.base}/tasks/missing`, headers);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe(expected);
    const refused = await post(`${server.base}/message:send`, 'x', {
      ...headers,
      'content-type': 'text/plain',
    });
    expect(refused.status).toBe(415);
    expect(refused.headers.get('content-type')).toBe(expected);
    const wrongMethod = await fetch(`${server.base}/message:send`, {
      headers: { ...VERSION, ...headers },
    });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('content-type')).toBe(expected);
  });

  it('answers an unknown path in application/a2a+json when Accept names it', async () => {
    const response = await get(`${server.base}/nothing`, { accept: 'application/a2a+json' });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/a2a+json');
  });

  it('answers the error of a streaming route asked for text/event-stream in application/a2a+json', async () => {
    const task = await createTask(server.base, 'echo done');
    for (const accept of ['text/event-stream', 'text/event-stream, text/plain']) {
      const response = await post(`${server.base}/tasks/${task.id}:subscribe`, '', { accept });
      expect(response.status).toBe(400);
      expect([accept, response.headers.get('content-type')]).toEqual([
        accept,
        'application/a2a+json',
      ]);
      await expectA2AError(response, 400, 'UNSUPPORTED_OPERATION');
    }
    // A client that names plain JSON beside the stream still gets it.
    const json = await post(`${server.base}/tasks/${task.id}:subscribe`, '', {
      accept: 'text/event-stream, application/json',
    });
    expect(json.headers.get('content-type')).toBe('application/json');
  });

  it('answers a stream as text/event-stream whatever Accept says', async () => {
    const response = await post(`${server.base}/message:stream`, sendBody('echo s'), {
      accept: 'application/a2a+json',
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
    await readSse(response);
  });
});

describe('A2A errors (spec 5.4, 11.6)', () => {
  it('TaskNotFoundError: 404 NOT_FOUND with the task id', async () => {
    const body = await expectA2AError(
      await get(`${server.base}/tasks/no-such-task`),
      404,
      'TASK_NOT_FOUND',
    );
    expect(body.error.status).toBe('NOT_FOUND');
    expect(errorInfoOf(body)).toEqual({
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'TASK_NOT_FOUND',
      domain: 'a2a-protocol.org',
      metadata: { taskId: 'no-such-task' },
    });
  });

  it('TaskNotCancelableError: 400 FAILED_PRECONDITION', async () => {
    const task = await createTask(server.base, 'echo done');
    const response = await post(`${server.base}/tasks/${task.id}:cancel`, '{}');
    const body = await expectA2AError(response, 400, 'TASK_NOT_CANCELABLE');
    expect(body.error.status).toBe('FAILED_PRECONDITION');
  });

  it('UnsupportedOperationError: 400 FAILED_PRECONDITION (subscribing to a finished task)', async () => {
    const task = await createTask(server.base, 'echo done');
    const response = await post(`${server.base}/tasks/${task.id}:subscribe`, '');
    const body = await expectA2AError(response, 400, 'UNSUPPORTED_OPERATION');
    expect(body.error.status).toBe('FAILED_PRECONDITION');
  });

  it('ContentTypeNotSupportedError: 400 INVALID_ARGUMENT for a part the agent does not accept', async () => {
    const response = await post(`${server.base}/message:send`, {
      message: {
        messageId: messageId(),
        role: 'ROLE_USER',
        parts: [{ text: 'echo x', mediaType: 'application/x-unheard-of' }],
      },
    });
    const body = await expectA2AError(response, 400, 'CONTENT_TYPE_NOT_SUPPORTED');
    expect(body.error.status).toBe('INVALID_ARGUMENT');
    expect(errorInfoOf(body).metadata).toEqual({
      mediaType: 'application/x-unheard-of',
      field: 'message.parts[0].mediaType',
    });
  });

  it('ContentTypeNotSupportedError: 415 for a request media type the binding does not read', async () => {
    const response = await post(`${server.base}/message:send`, '<x/>', {
      'content-type': 'application/xml',
    });
    const body = await expectA2AError(response, 415, 'CONTENT_TYPE_NOT_SUPPORTED');
    expect(errorInfoOf(body).metadata).toEqual({ contentType: 'application/xml' });
  });

  it('PushNotificationNotSupportedError: 400 FAILED_PRECONDITION', async () => {
    const task = await createTask(server.base, 'echo p');
    const response = await get(`${server.base}/tasks/${task.id}/pushNotificationConfigs`);
    const body = await expectA2AError(response, 400, 'PUSH_NOTIFICATION_NOT_SUPPORTED');
    expect(body.error.status).toBe('FAILED_PRECONDITION');
  });

  it('InvalidParamsError: 400 INVALID_ARGUMENT with a BadRequest detail and no ErrorInfo', async () => {
    const response = await post(`${server.base}/message:send`, { message: { role: 'ROLE_USER' } });
    const text = await response.clone().text();
    const fields = await expectInvalidParams(response);
    expect(fields.sort()).toEqual(['message.messageId', 'message.parts']);
    const body = JSON.parse(text) as { error: { details: { '@type': string }[] } };
    expect(body.error.details.map((detail) => detail['@type'])).toEqual([
      'type.googleapis.com/google.rpc.BadRequest',
    ]);
  });
});

describe('A2A-Version (spec 3.6.2)', () => {
  it.each([
    ['absent', undefined, '0.3'],
    ['empty', '', '0.3'],
    ['blank', '  ', '0.3'],
    ['0.3', '0.3', '0.3'],
    ['2.0', '2.0', '2.0'],
    ['1.1', '1.1', '1.1'],
    ['not a version', 'latest', 'latest'],
  ])(
    'refuses a version that is %s with VersionNotSupportedError',
    async (_case, version, requested) => {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (version !== undefined) headers['a2a-version'] = version;
      const response = await fetch(`${server.base}/message:send`, {
        method: 'POST',
        headers,
        body: JSON.stringify(sendBody('echo v')),
      });
      const body = await expectA2AError(response, 400, 'VERSION_NOT_SUPPORTED');
      expect(body.error.status).toBe('FAILED_PRECONDITION');
      expect(errorInfoOf(body).metadata).toEqual({
        supportedVersions: '1.0',
        requestedVersion: requested,
      });
    },
  );

  it.each(['/tasks', '/tasks/t1', '/extendedAgentCard', '/tasks/t1/pushNotificationConfigs'])(
    'refuses GET %s without A2A-Version',
    async (path) => {
      const response = await fetch(`${server.base}${path}`);
      await expectA2AError(response, 400, 'VERSION_NOT_SUPPORTED');
    },
  );

  it('refuses a stream without A2A-Version before opening it, in JSON', async () => {
    const response = await fetch(`${server.base}/message:stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(sendBody('echo v')),
    });
    expect(response.headers.get('content-type')).toBe('application/json');
    await expectA2AError(response, 400, 'VERSION_NOT_SUPPORTED');
  });

  it('checks the version before the body: a bad version wins over bad JSON', async () => {
    const response = await fetch(`${server.base}/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '0.3' },
      body: '{"not json',
    });
    await expectA2AError(response, 400, 'VERSION_NOT_SUPPORTED');
  });

  it.each(['1.0', ' 1.0 ', '1.0.3'])(
    'accepts A2A-Version: %j (the patch part is ignored)',
    async (version) => {
      const response = await post(`${server.base}/message:send`, sendBody('echo ok'), {
        'a2a-version': version,
      });
      expect(response.status).toBe(200);
    },
  );

  it('creates no task when the version is refused', async () => {
    const contextId = `ctx-version-${Date.now()}`;
    const response = await fetch(`${server.base}/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(sendBody('echo v', { message: { contextId } })),
    });
    expect(response.status).toBe(400);
    const list = (await (await get(`${server.base}/tasks?contextId=${contextId}`)).json()) as {
      tasks: unknown[];
    };
    expect(list.tasks).toEqual([]);
  });
});

describe('A2A-Extensions', () => {
  const requested = `${OPTIONAL_EXTENSION}, https://example.com/ext/unknown/v1`;

  it('echoes the extensions the agent supports, and only those, on an answer', async () => {
    const response = await post(`${server.base}/message:send`, sendBody('echo e'), {
      'a2a-extensions': requested,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('a2a-extensions')).toBe(OPTIONAL_EXTENSION);
  });

  it('echoes them on a stream and on an error', async () => {
    const stream = await post(`${server.base}/message:stream`, sendBody('echo e'), {
      'a2a-extensions': requested,
    });
    expect(stream.headers.get('a2a-extensions')).toBe(OPTIONAL_EXTENSION);
    await readSse(stream);
    const error = await get(`${server.base}/tasks/missing`, { 'a2a-extensions': requested });
    expect(error.headers.get('a2a-extensions')).toBe(OPTIONAL_EXTENSION);
    await expectError(error, 404);
  });

  it('sends no A2A-Extensions when none was requested or none is supported', async () => {
    const none = await post(`${server.base}/message:send`, sendBody('echo e'));
    expect(none.headers.get('a2a-extensions')).toBeNull();
    const unknown = await post(`${server.base}/message:send`, sendBody('echo e'), {
      'a2a-extensions': 'https://example.com/ext/unknown/v1',
    });
    expect(unknown.headers.get('a2a-extensions')).toBeNull();
  });

  it('shows the agent the extensions it supports among those requested', async () => {
    const task = await createWaitingTask(server.base);
    const response = await get(`${server.base}/tasks/${task.id}`, {
      'a2a-extensions': ` ${OPTIONAL_EXTENSION} ,${OPTIONAL_EXTENSION}`,
    });
    expect(response.headers.get('a2a-extensions')).toBe(OPTIONAL_EXTENSION);
    await post(`${server.base}/tasks/${task.id}:cancel`, '{}');
  });
});
