/**
 * The HTTP+JSON client transport: requests built from the proto's HTTP mapping (path variables,
 * tenant prefix, spec 11.5 query parameters, bodies without the path fields), and responses read
 * from a fake REST agent — `google.rpc.Status` errors, `204` for `Empty`, error events inside a
 * stream, and the GET → POST fallback of `SubscribeToTask`.
 */

import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { restRoute } from '../../src/bindings/rest/rest-client-paths.js';
import {
  createClient,
  HttpStatusError,
  InvalidParamsError,
  ProtocolViolationError,
  TaskNotFoundError,
  UnsupportedOperationError,
  UsageError,
} from '../../src/client.js';
import { cardWith, collect, startRawServer, type SeenRequest } from './support.js';

const base = 'http://agent.example.com/api/v1';

describe('REST routes', () => {
  it('fills path variables, percent-encoded, and puts the other GET fields in the query', () => {
    expect(restRoute('GetTask', { id: 'a/b:c', historyLength: 3 }, base)).toEqual({
      method: 'GET',
      url: 'http://agent.example.com/api/v1/tasks/a%2Fb%3Ac?historyLength=3',
    });
    const list = restRoute(
      'ListTasks',
      {
        contextId: 'c 1',
        status: 'TASK_STATE_WORKING',
        pageSize: 50,
        includeArtifacts: false,
        statusTimestampAfter: '2025-11-09T10:30:00Z',
      },
      base,
    );
    expect(list.method).toBe('GET');
    const query = new URL(list.url).searchParams;
    expect(Object.fromEntries(query)).toEqual({
      contextId: 'c 1',
      status: 'TASK_STATE_WORKING',
      pageSize: '50',
      includeArtifacts: 'false',
      statusTimestampAfter: '2025-11-09T10:30:00Z',
    });
    expect(restRoute('GetTaskPushNotificationConfig', { taskId: 't', id: 'c' }, base).url).toBe(
      `${base}/tasks/t/pushNotificationConfigs/c`,
    );
    expect(
      restRoute('DeleteTaskPushNotificationConfig', { taskId: 't', id: 'c' }, base).method,
    ).toBe('DELETE');
    expect(restRoute('GetExtendedAgentCard', {}, `${base}/`).url).toBe(`${base}/extendedAgentCard`);
  });

  it('prefixes the tenant and leaves path fields and tenant out of the body', () => {
    expect(
      restRoute('CancelTask', { tenant: 'acme', id: 't1', metadata: { why: 'x' } }, base),
    ).toEqual({
      method: 'POST',
      url: `${base}/acme/tasks/t1:cancel`,
      body: '{"metadata":{"why":"x"}}',
    });
    const create = restRoute(
      'CreateTaskPushNotificationConfig',
      { taskId: 't1', url: 'https://hook', token: 'k' },
      base,
    );
    expect(create).toEqual({
      method: 'POST',
      url: `${base}/tasks/t1/pushNotificationConfigs`,
      body: '{"url":"https://hook","token":"k"}',
    });
    expect(restRoute('SendMessage', { tenant: '', message: { x: 1 } }, base).url).toBe(
      `${base}/message:send`,
    );
  });

  it('keeps the query of the interface URL and repeats repeated fields', () => {
    const route = restRoute('ListTasks', { pageToken: 'p' }, 'http://h/rest?key=1');
    expect(route.url).toBe('http://h/rest/tasks?key=1&pageToken=p');
  });

  it('refuses a request without its path field', () => {
    expect(() => restRoute('GetTask', { id: '' }, base)).toThrow(UsageError);
    expect(() => restRoute('GetTask', { id: '' }, base)).toThrow(/needs a non-empty "id"/);
  });
});

/** A fake REST agent; `routes` answers by `METHOD path`. */
async function fakeRestAgent(
  routes: Record<string, (request: SeenRequest, res: ServerResponse) => void>,
) {
  const card = cardWith([{ url: '/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }]);
  const server = await startRawServer((request, res) => {
    if (request.url.startsWith('/.well-known/')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card));
      return;
    }
    const key = `${request.method} ${request.url.replace(/\?.*$/, '')}`;
    const route = routes[key];
    if (route === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`no route ${key}`);
      return;
    }
    route(request, res);
  });
  const client = await createClient(server.url, { card, retry: false });
  return { client, requests: server.requests };
}

const task = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } };
const json = (res: ServerResponse, status: number, body: unknown, type = 'application/a2a+json') =>
  res.writeHead(status, { 'content-type': type }).end(JSON.stringify(body));
const sse = (res: ServerResponse, frames: string[]) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(frames.join(''));
};

describe('REST responses', () => {
  it('reads results in application/a2a+json and application/json, and 204 for Empty', async () => {
    const { client, requests } = await fakeRestAgent({
      'GET /rest/tasks/t1': (_, res) => json(res, 200, task),
      'GET /rest/tasks': (_, res) =>
        json(
          res,
          200,
          { tasks: [task], nextPageToken: '', pageSize: 50, totalSize: 1 },
          'application/json',
        ),
      'DELETE /rest/tasks/t1/pushNotificationConfigs/c': (_, res) => void res.writeHead(204).end(),
    });
    expect((await client.getTask({ id: 't1' })).id).toBe('t1');
    expect((await client.listTasks()).totalSize).toBe(1);
    await expect(
      client.deleteTaskPushNotificationConfig({ taskId: 't1', id: 'c' }),
    ).resolves.toBeUndefined();
    expect(requests[0]?.headers.accept).toBe('application/a2a+json, application/json');
    expect(requests[0]?.headers['a2a-version']).toBe('1.0');
  });

  it('rebuilds A2A errors from google.rpc.Status bodies', async () => {
    const { client } = await fakeRestAgent({
      'GET /rest/tasks/gone': (_, res) =>
        json(res, 404, {
          error: {
            code: 404,
            status: 'NOT_FOUND',
            message: 'The task is gone',
            details: [
              {
                '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
                reason: 'TASK_NOT_FOUND',
                domain: 'a2a-protocol.org',
                metadata: { taskId: 'gone' },
              },
            ],
          },
        }),
      'POST /rest/message:send': (_, res) =>
        json(res, 400, {
          error: {
            code: 400,
            status: 'INVALID_ARGUMENT',
            message: 'Invalid parameters',
            details: [
              {
                '@type': 'type.googleapis.com/google.rpc.BadRequest',
                fieldViolations: [{ field: 'message.parts', description: 'required' }],
              },
            ],
          },
        }),
      'GET /rest/tasks': (_, res) =>
        res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>'),
      'GET /rest/tasks/bad': (_, res) => json(res, 200, { id: 'bad', status: { state: 'DONE' } }),
    });
    const notFound = await client.getTask({ id: 'gone' }).catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(TaskNotFoundError);
    expect((notFound as TaskNotFoundError).message).toBe('The task is gone');
    expect((notFound as TaskNotFoundError).metadata).toEqual({ taskId: 'gone' });
    const invalid = await client.sendMessage({ message: { parts: [] } }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(InvalidParamsError);
    expect((invalid as InvalidParamsError).violations).toEqual([
      { field: 'message.parts', description: 'required' },
    ]);
    const gateway = await client.listTasks().catch((e: unknown) => e);
    expect(gateway).toBeInstanceOf(HttpStatusError);
    expect((gateway as Error).message).toMatch(/^HTTP 502 Bad Gateway from GET .*Bad gateway/);
    const bad = await client.getTask({ id: 'bad' }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ProtocolViolationError);
    expect((bad as ProtocolViolationError).violations[0]?.field).toBe('status.state');
  });

  it('falls back to POST for SubscribeToTask on 405, and remembers', async () => {
    const frames = [
      `data: ${JSON.stringify({ task: { ...task, status: { state: 'TASK_STATE_COMPLETED' } } })}\n\n`,
    ];
    const { client, requests } = await fakeRestAgent({
      'GET /rest/tasks/t1:subscribe': (_, res) => void res.writeHead(405, { allow: 'POST' }).end(),
      'POST /rest/tasks/t1:subscribe': (_, res) => sse(res, frames),
    });
    expect(await collect(client.subscribeToTask({ id: 't1' }))).toHaveLength(1);
    expect(await collect(client.subscribeToTask({ id: 't1' }))).toHaveLength(1);
    expect(
      requests.map((r) => `${r.method} ${r.url}`).filter((r) => r.includes('subscribe')),
    ).toEqual([
      'GET /rest/tasks/t1:subscribe',
      'POST /rest/tasks/t1:subscribe',
      'POST /rest/tasks/t1:subscribe',
    ]);
  });

  it('streams events with their ids and throws an error event as its typed error', async () => {
    const errorBody = {
      error: {
        code: 400,
        status: 'FAILED_PRECONDITION',
        message: 'Streaming stopped',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'UNSUPPORTED_OPERATION',
            domain: 'a2a-protocol.org',
          },
        ],
      },
    };
    const { client, requests } = await fakeRestAgent({
      'POST /rest/message:stream': (_, res) =>
        sse(res, [
          `id: 1\ndata: ${JSON.stringify({ task })}\n\n`,
          `event: error\ndata: ${JSON.stringify(errorBody)}\n\n`,
        ]),
    });
    const seen: unknown[] = [];
    const error = await (async () => {
      for await (const event of client.sendStreamingMessage({
        message: { parts: [{ text: 'x' }] },
      })) {
        seen.push(event);
      }
    })().catch((e: unknown) => e);
    expect(seen).toEqual([{ task }]);
    expect(error).toBeInstanceOf(UnsupportedOperationError);
    expect((error as Error).message).toBe('Streaming stopped');
    expect(requests.at(-1)?.headers['content-type']).toBe('application/a2a+json');
  });
});
