/**
 * The HTTP+JSON driver of the behaviour suite, checked against a server written by hand from
 * spec 11 (the requests it must send, the answers it must understand), so that the suite can run
 * over the REST binding the day Tandem serves it: routes and tenant prefixes, query parameters,
 * service parameters both ways, `google.rpc.Status` errors decoded to their typed classes (and
 * refused when their statuses disagree), and SSE streams of bare `StreamResponse`s.
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  InvalidParamsError,
  TaskNotCancelableError,
  TaskNotFoundError,
  type Task,
} from '../../../src/index.js';
import { rejection, violatedFields } from '../../support/a2a-errors.js';
import { BindingViolationError, type A2ADriver } from '../../support/drivers/a2a-driver.js';
import { createDriver } from '../../support/drivers/bindings.js';
import { describeEvent } from '../../support/events.js';
import { send } from '../../support/messages.js';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

type Answer = (res: ServerResponse, seen: Seen) => void;

const TASK: Task = { id: 't/1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } };

function json(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  return (res) => {
    res.writeHead(status, { 'content-type': 'application/a2a+json', ...headers });
    res.end(body === undefined ? '' : JSON.stringify(body));
  };
}

/** A `google.rpc.Status` body as spec 11.6 shows it. */
function status(code: number, name: string, reason: string | undefined, extra: object[] = []) {
  const details = [
    ...(reason === undefined
      ? []
      : [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason,
            domain: 'a2a-protocol.org',
          },
        ]),
    ...extra,
  ];
  return { error: { code, status: name, message: `${name} on purpose`, details } };
}

function sse(events: { id?: number; data: unknown }[]): Answer {
  return (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const event of events) {
      res.write(
        `${event.id === undefined ? '' : `id: ${event.id}\n`}data: ${JSON.stringify(event.data)}\n\n`,
      );
    }
    res.end();
  };
}

describe('The HTTP+JSON driver', () => {
  const seen: Seen[] = [];
  let answer: Answer = json(500, {});
  let base = '';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(request);
      answer(res, request);
    });
  });
  let driver: A2ADriver;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rest`;
    driver = createDriver('rest', base);
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    seen.length = 0;
  });

  const last = (): Seen => seen.at(-1) as Seen;

  it('sends SendMessage as POST /message:send with the service parameters, and reads them back', async () => {
    answer = json(200, { task: TASK }, { 'a2a-extensions': 'urn:a, urn:b' });
    const request = send('hi');
    const reply = await driver.call('SendMessage', request, { extensions: ['urn:a', 'urn:c'] });
    expect(reply.result?.task).toEqual(TASK);
    expect(reply.activatedExtensions).toEqual(['urn:a', 'urn:b']);
    expect(last()).toMatchObject({ method: 'POST', url: '/rest/message:send' });
    expect(last().headers).toMatchObject({
      'content-type': 'application/a2a+json',
      'a2a-version': '1.0',
      'a2a-extensions': 'urn:a, urn:c',
    });
    expect(JSON.parse(last().body)).toEqual(request);
    await driver.sendTask({ ...request, tenant: 'acme corp' }, { version: null });
    expect(last().url).toBe('/rest/acme%20corp/message:send');
    expect(JSON.parse(last().body)).toEqual(request);
    expect(last().headers).not.toHaveProperty('a2a-version');
  });

  it('maps the task operations to their routes, with fields in the query or the body', async () => {
    answer = json(200, TASK);
    await driver.getTask({ id: 't/1', historyLength: 2 });
    expect(last()).toMatchObject({ method: 'GET', url: '/rest/tasks/t%2F1?historyLength=2' });
    answer = json(200, { tasks: [], nextPageToken: '', pageSize: 3, totalSize: 0 });
    await driver.listTasks({
      tenant: 'acme',
      status: 'TASK_STATE_WORKING',
      pageSize: 3,
      includeArtifacts: true,
    });
    expect(last()).toMatchObject({
      method: 'GET',
      url: '/rest/acme/tasks?status=TASK_STATE_WORKING&pageSize=3&includeArtifacts=true',
    });
    answer = json(200, TASK);
    await driver.cancelTask({ id: 't1' });
    expect(last()).toMatchObject({ method: 'POST', url: '/rest/tasks/t1:cancel', body: '{}' });
    answer = json(200, { url: 'https://x.example/hook', id: 'p1', taskId: 't1' });
    await driver.createTaskPushNotificationConfig({ taskId: 't1', url: 'https://x.example/hook' });
    expect(last()).toMatchObject({ method: 'POST', url: '/rest/tasks/t1/pushNotificationConfigs' });
    expect(JSON.parse(last().body)).toEqual({ url: 'https://x.example/hook' });
    await driver.getTaskPushNotificationConfig({ taskId: 't1', id: 'p1' });
    expect(last()).toMatchObject({
      method: 'GET',
      url: '/rest/tasks/t1/pushNotificationConfigs/p1',
    });
    answer = json(200, { configs: [] });
    await driver.listTaskPushNotificationConfigs({ taskId: 't1', pageSize: 5 });
    expect(last().url).toBe('/rest/tasks/t1/pushNotificationConfigs?pageSize=5');
    answer = json(200, undefined);
    await driver.deleteTaskPushNotificationConfig({ taskId: 't1', id: 'p1' });
    expect(last()).toMatchObject({
      method: 'DELETE',
      url: '/rest/tasks/t1/pushNotificationConfigs/p1',
    });
    answer = json(200, { name: 'Extended' });
    expect((await driver.getExtendedAgentCard()).name).toBe('Extended');
    expect(last()).toMatchObject({ method: 'GET', url: '/rest/extendedAgentCard' });
  });

  it('decodes google.rpc.Status errors to their classes, with their details', async () => {
    answer = json(404, status(404, 'NOT_FOUND', 'TASK_NOT_FOUND'));
    await rejection(driver.getTask({ id: 'x' }), TaskNotFoundError);
    answer = json(400, status(400, 'FAILED_PRECONDITION', 'TASK_NOT_CANCELABLE'));
    await rejection(driver.cancelTask({ id: 'x' }), TaskNotCancelableError);
    const badRequest = {
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: [{ field: 'pageSize', description: 'must be 1..100' }],
    };
    answer = json(400, status(400, 'INVALID_ARGUMENT', undefined, [badRequest]));
    const invalid = await rejection(driver.listTasks({ pageSize: 0 }), InvalidParamsError);
    expect(violatedFields(invalid)).toEqual(['pageSize']);
  });

  it('refuses an error whose HTTP status, code and status name disagree with its reason', async () => {
    for (const body of [
      status(404, 'NOT_FOUND', 'TASK_NOT_CANCELABLE'),
      status(400, 'NOT_FOUND', 'TASK_NOT_FOUND'),
    ]) {
      answer = json(404, body);
      await expect(driver.getTask({ id: 'x' })).rejects.toBeInstanceOf(BindingViolationError);
    }
    answer = json(404, { message: 'not a status' });
    await expect(driver.getTask({ id: 'x' })).rejects.toBeInstanceOf(BindingViolationError);
  });

  it('reads streams of bare StreamResponses with their ids, and resumes with Last-Event-ID', async () => {
    answer = sse([
      { id: 1, data: { task: { ...TASK, status: { state: 'TASK_STATE_SUBMITTED' } } } },
      {
        id: 2,
        data: {
          statusUpdate: {
            taskId: 't/1',
            contextId: 'c1',
            status: { state: 'TASK_STATE_COMPLETED' },
          },
        },
      },
    ]);
    const stream = await driver.sendStreamingMessage(send('go'));
    expect(last()).toMatchObject({ method: 'POST', url: '/rest/message:stream' });
    expect(last().headers.accept).toBe('text/event-stream');
    const events = await stream.rest();
    expect(events.map(describeEvent)).toEqual([
      '1 task TASK_STATE_SUBMITTED',
      '2 status TASK_STATE_COMPLETED',
    ]);
    expect(events[1]?.json).toBe(JSON.stringify(events[1]?.response));
    await (await driver.subscribeToTask({ id: 't/1' }, { lastEventId: 1 })).rest();
    expect(last()).toMatchObject({ method: 'GET', url: '/rest/tasks/t%2F1:subscribe' });
    expect(last().headers['last-event-id']).toBe('1');
  });

  it('rejects with the typed error a stream is refused with, or ends with', async () => {
    answer = json(404, status(404, 'NOT_FOUND', 'TASK_NOT_FOUND'));
    await rejection(driver.subscribeToTask({ id: 'x' }), TaskNotFoundError);
    answer = sse([
      { id: 1, data: { task: TASK } },
      { data: status(404, 'NOT_FOUND', 'TASK_NOT_FOUND') },
    ]);
    const stream = await driver.subscribeToTask({ id: 't/1' });
    expect((await stream.next())?.seq).toBe(1);
    await rejection(stream.next(), TaskNotFoundError);
  });
});
