/**
 * Every operation of the spec through `createClient` against Tandem's own server over JSON-RPC:
 * results are typed and validated, and A2A errors come back as the server's error classes with
 * their details.
 */

import { describe, expect, it } from 'vitest';
import {
  createCardResolver,
  createClient,
  CustomJsonRpcError,
  InternalError,
  InvalidParamsError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  VersionNotSupportedError,
} from '../../src/client.js';
import { cardWith, collect, describeEvent, startRawServer, startTandem } from './support.js';

const text = (t: string) => ({ message: { parts: [{ text: t }] } });

describe('operations against Tandem over JSON-RPC', () => {
  it('sends a message and gets the completed task', async () => {
    const { url } = await startTandem();
    const client = await createClient(url);
    expect(client.selectedInterface.protocolBinding).toBe('JSONRPC');
    const response = await client.sendMessage(text('echo hi'));
    expect(response.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(response.task?.artifacts?.[0]?.parts).toEqual([{ text: 'hi' }]);
    const direct = await client.sendMessage(text('reply hello'));
    expect(direct.message?.parts).toEqual([{ text: 'hello' }]);
    expect(direct.message?.role).toBe('ROLE_AGENT');
  });

  it('streams the task lifecycle', async () => {
    const { url } = await startTandem();
    const client = await createClient(url);
    const events = await collect(client.sendStreamingMessage(text('stream 3')));
    expect(events.map(describeEvent)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'artifact:chunk-0',
      'artifact:chunk-1+append',
      'artifact:chunk-2+append',
      'status:TASK_STATE_COMPLETED',
    ]);
  });

  it('gets, lists and cancels tasks', async () => {
    const { url } = await startTandem();
    const client = await createClient(url);
    const done = (await client.sendMessage(text('echo one'))).task;
    const waiting = (
      await client.sendMessage({ ...text('wait'), configuration: { returnImmediately: true } })
    ).task;
    if (done === undefined || waiting === undefined) throw new Error('expected tasks');

    const fetched = await client.getTask({ id: done.id, historyLength: 0 });
    expect(fetched.id).toBe(done.id);
    expect(fetched.history).toBeUndefined();

    const page = await client.listTasks({ pageSize: 1 });
    expect(page.tasks).toHaveLength(1);
    expect(page.totalSize).toBe(2);
    const next = await client.listTasks({ pageSize: 1, pageToken: page.nextPageToken });
    expect(next.tasks[0]?.id).not.toBe(page.tasks[0]?.id);
    expect(
      (await client.listTasks({ status: 'TASK_STATE_COMPLETED' })).tasks.map((t) => t.id),
    ).toEqual([done.id]);

    const canceled = await client.cancelTask({ id: waiting.id });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    const error = await client.cancelTask({ id: done.id }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskNotCancelableError);
    expect((error as TaskNotCancelableError).metadata).toMatchObject({ taskId: done.id });
  });

  it('subscribes to a running task, and resumes after an event id', async () => {
    const { url } = await startTandem();
    const client = await createClient(url);
    const started = await client.sendMessage({
      ...text('slow 3 30'),
      configuration: { returnImmediately: true },
    });
    const id = started.task?.id ?? '';
    const events = await collect(client.subscribeToTask({ id }));
    expect(events[0]?.task?.id).toBe(id);
    expect(events.map(describeEvent).at(-1)).toBe('status:TASK_STATE_COMPLETED');
    const replay = await collect(client.subscribeToTask({ id }, { lastEventId: '0' }));
    expect(replay.map(describeEvent)).toContain('artifact:chunk-2+append');
  });

  it('answers the push notification operations with PushNotificationNotSupportedError', async () => {
    const { url } = await startTandem();
    const client = await createClient(url);
    const calls = [
      client.createTaskPushNotificationConfig({ taskId: 't', url: 'https://example.com/hook' }),
      client.getTaskPushNotificationConfig({ taskId: 't', id: 'c' }),
      client.listTaskPushNotificationConfigs({ taskId: 't' }),
      client.deleteTaskPushNotificationConfig({ taskId: 't', id: 'c' }),
    ];
    for (const call of calls)
      await expect(call).rejects.toBeInstanceOf(PushNotificationNotSupportedError);
  });

  it('gets the extended card and replaces the card with it', async () => {
    const { url } = await startTandem();
    const client = await createClient(url);
    expect(client.card.name).toBe('Client test agent');
    const extended = await client.getExtendedAgentCard();
    expect(extended.name).toBe('Client test agent (extended)');
    expect(client.card).toBe(extended);
  });

  it('rebuilds typed errors with their details', async () => {
    const { url } = await startTandem();
    const client = await createClient(url);

    const notFound = await client.getTask({ id: 'nope' }).catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(TaskNotFoundError);
    expect((notFound as TaskNotFoundError).metadata).toEqual({ taskId: 'nope' });

    const invalid = await client.getTask({ id: 'x', historyLength: -1 }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(InvalidParamsError);
    expect((invalid as InvalidParamsError).violations).toEqual([
      expect.objectContaining({ field: 'historyLength' }),
    ]);

    const version = await client
      .getTask({ id: 'x' }, { headers: { 'A2A-Version': '9.9' } })
      .catch((e: unknown) => e);
    expect(version).toBeInstanceOf(VersionNotSupportedError);
    expect((version as VersionNotSupportedError).metadata).toMatchObject({
      supportedVersions: '1.0',
      requestedVersion: '9.9',
    });

    const done = (await client.sendMessage(text('echo x'))).task?.id ?? '';
    const terminal = await collect(client.subscribeToTask({ id: done })).catch((e: unknown) => e);
    expect(terminal).toBeInstanceOf(UnsupportedOperationError);
    await expect(
      client.sendMessage({ message: { parts: [{ text: 'more' }], taskId: done } }),
    ).rejects.toBeInstanceOf(UnsupportedOperationError);
  });

  it('keeps a custom JSON-RPC error code as CustomJsonRpcError, with its data', async () => {
    const card = cardWith([{ url: '/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
    const server = await startRawServer((request, res) => {
      if (request.method === 'GET') return void res.writeHead(200).end(JSON.stringify(card));
      const error = { code: -31999, message: 'Unauthorized', data: { hint: 'log in' } };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, error }));
    });
    const client = await createClient(server.url, { cardResolver: createCardResolver() });
    const error = await client.getTask({ id: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CustomJsonRpcError);
    expect(error).toMatchObject({ code: -31999, data: { hint: 'log in' } });
    expect((error as Error).message).toBe('JSON-RPC error -31999: Unauthorized');
  });

  it('throws an error event inside a JSON-RPC stream as its typed error', async () => {
    const card = cardWith([{ url: '/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
    const task = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } };
    const server = await startRawServer((request, res) => {
      if (request.method === 'GET') return void res.writeHead(200).end(JSON.stringify(card));
      const error = { code: -32603, message: 'Internal error' };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        `id: 1\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { task } })}\n\n` +
          `data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, error })}\n\n`,
      );
    });
    const client = await createClient(server.url, { cardResolver: createCardResolver() });
    const seen: unknown[] = [];
    const error = await (async () => {
      for await (const event of client.sendStreamingMessage(text('x'))) seen.push(event);
    })().catch((e: unknown) => e);
    expect(seen).toEqual([{ task }]);
    expect(error).toBeInstanceOf(InternalError);
  });
});
