/**
 * Tandem's own client on the HTTP+JSON interface of Tandem's server: every operation the client
 * offers, a tenant declared in the card, typed errors, and a stream that drops and is resumed with
 * `SubscribeToTask` and `Last-Event-ID` over REST.
 */

import { describe, expect, it } from 'vitest';
import {
  createCardResolver,
  createClient,
  isTask,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  type A2AClient,
  type AgentCard,
  type StreamResponse,
} from '../../../src/client.js';
import { PASS, startFaultProxy, type Fault } from '../../client/support.js';
import {
  describePayload,
  freshName,
  get,
  signal,
  useRestServer,
  type WireStreamResponse,
} from './support.js';

const server = useRestServer();

function restClient(url = server.base, card?: AgentCard): Promise<A2AClient> {
  return createClient(url, {
    bindings: ['HTTP+JSON'],
    cardResolver: createCardResolver(),
    retry: { baseDelayMs: 1, maxDelayMs: 20 },
    ...(card === undefined ? {} : { card }),
  });
}

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of stream) items.push(item);
  return items;
}

const describeAll = (events: StreamResponse[]): string[] =>
  events.map((event) => describePayload(event as WireStreamResponse));

const text = (value: string) => ({ message: { parts: [{ text: value }] } });

describe('createClient with bindings: ["HTTP+JSON"]', () => {
  it('selects the REST interface at the agent’s path', async () => {
    const client = await restClient();
    expect(client.selectedInterface).toEqual({
      url: server.base,
      protocolBinding: 'HTTP+JSON',
      protocolVersion: '1.0',
    });
  });

  it('sendMessage: a task, and a direct message', async () => {
    const client = await restClient();
    const sent = await client.sendMessage(text('echo over rest'));
    expect(sent.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(sent.task?.artifacts?.[0]?.parts).toEqual([{ text: 'over rest' }]);
    const reply = await client.sendMessage(text('reply hi'));
    expect(reply.message?.parts).toEqual([{ text: 'hi' }]);
  });

  it('sendStreamingMessage: every event, in order', async () => {
    const client = await restClient();
    expect(describeAll(await collect(client.sendStreamingMessage(text('stream 2'))))).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'artifact:chunk-0',
      'artifact:chunk-1+append',
      'status:TASK_STATE_COMPLETED',
    ]);
  });

  it('getTask, with historyLength; TaskNotFoundError for an unknown id', async () => {
    const client = await restClient();
    const id = (await client.sendMessage(text('echo read me'))).task?.id as string;
    const read = await client.getTask({ id });
    expect(read).toMatchObject({ id, status: { state: 'TASK_STATE_COMPLETED' } });
    expect(read.history).toHaveLength(1);
    expect((await client.getTask({ id, historyLength: 0 })).history ?? []).toEqual([]);
    await expect(client.getTask({ id: 'a/b:c d' })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('listTasks with filters and pages', async () => {
    const client = await restClient();
    const contextId = `ctx-client-${Date.now()}`;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const sent = await client.sendMessage({
        message: { contextId, parts: [{ text: `echo ${i}` }] },
      });
      ids.push(sent.task?.id as string);
    }
    const first = await client.listTasks({ contextId, pageSize: 2, includeArtifacts: false });
    expect(first.tasks).toHaveLength(2);
    expect(first.totalSize).toBe(3);
    for (const task of first.tasks) expect(task.artifacts ?? []).toEqual([]);
    const second = await client.listTasks({
      contextId,
      pageSize: 2,
      pageToken: first.nextPageToken,
    });
    expect([...first.tasks, ...second.tasks].map((task) => task.id).sort()).toEqual(ids.sort());
    const working = await client.listTasks({ contextId, status: 'TASK_STATE_WORKING' });
    expect(working.tasks).toEqual([]);
  });

  it('cancelTask; TaskNotCancelableError once it is canceled', async () => {
    const client = await restClient();
    const sent = await client.sendMessage({
      ...text('wait'),
      configuration: { returnImmediately: true },
    });
    const id = sent.task?.id as string;
    expect((await client.cancelTask({ id })).status.state).toBe('TASK_STATE_CANCELED');
    await expect(client.cancelTask({ id })).rejects.toBeInstanceOf(TaskNotCancelableError);
  });

  it('subscribeToTask: from the current task to the end', async () => {
    const client = await restClient();
    const go = freshName();
    await client.sendMessage({
      ...text(`gate ${go} 1`),
      configuration: { returnImmediately: true },
    });
    const id = await signal(`${go}:working`).promise;
    const events: StreamResponse[] = [];
    for await (const event of client.subscribeToTask({ id })) {
      events.push(event);
      if (events.length === 1) signal(go).resolve();
    }
    expect(describeAll(events)).toEqual([
      'task:TASK_STATE_WORKING',
      'artifact:chunk-0',
      'status:TASK_STATE_COMPLETED',
    ]);
  });

  it('subscribeToTask with lastEventId replays a finished task from there', async () => {
    const client = await restClient();
    const all = await collect(client.sendStreamingMessage(text('stream 2')));
    const id = all[0]?.task?.id as string;
    const replayed = await collect(client.subscribeToTask({ id }, { lastEventId: '3' }));
    expect(describeAll(replayed)).toEqual(describeAll(all.slice(3)));
    await expect(collect(client.subscribeToTask({ id }))).rejects.toBeInstanceOf(
      UnsupportedOperationError,
    );
  });

  it('the push notification config operations: PushNotificationNotSupportedError', async () => {
    const client = await restClient();
    const id = (await client.sendMessage(text('echo p'))).task?.id as string;
    await expect(
      client.createTaskPushNotificationConfig({ taskId: id, url: 'https://c.example.com/hook' }),
    ).rejects.toBeInstanceOf(PushNotificationNotSupportedError);
    await expect(
      client.getTaskPushNotificationConfig({ taskId: id, id: 'c1' }),
    ).rejects.toBeInstanceOf(PushNotificationNotSupportedError);
    await expect(client.listTaskPushNotificationConfigs({ taskId: id })).rejects.toBeInstanceOf(
      PushNotificationNotSupportedError,
    );
    await expect(
      client.deleteTaskPushNotificationConfig({ taskId: id, id: 'c1' }),
    ).rejects.toBeInstanceOf(PushNotificationNotSupportedError);
  });

  it('getExtendedAgentCard: the extended card replaces the public one', async () => {
    const client = await restClient();
    expect(client.card.name).toBe('REST test agent');
    const extended = await client.getExtendedAgentCard();
    expect(extended.name).toBe('REST test agent (extended)');
    expect(client.card.name).toBe('REST test agent (extended)');
  });

  it('send and a conversation that continues a task asking for input', async () => {
    const client = await restClient();
    const answer = await client.send('echo simply');
    expect(isTask(answer) && answer.status.state).toBe('TASK_STATE_COMPLETED');
    const conversation = client.conversation();
    const asked = await conversation.send('ask');
    expect(isTask(asked) && asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const pending = conversation.pendingTask?.id;
    const again = await conversation.send('ask');
    expect(isTask(again) && again.id).toBe(pending);
    expect(conversation.contextId).toBe(isTask(asked) ? asked.contextId : undefined);
  });

  it('sends the tenant of the card’s interface in the path', async () => {
    const publicCard = await (await fetch(`${server.base}/.well-known/agent-card.json`)).json();
    const card = {
      ...(publicCard as AgentCard),
      supportedInterfaces: [
        { url: server.base, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: 'acme' },
      ],
    };
    const client = await restClient(server.base, card);
    const id = (await client.sendMessage(text('echo tenanted'))).task?.id as string;
    expect((await get(`${server.base}/acme/tasks/${id}`)).status).toBe(200);
    expect((await get(`${server.base}/tasks/${id}`)).status).toBe(404);
    expect((await client.getTask({ id })).id).toBe(id);
    const listed = await client.listTasks({});
    expect(listed.tasks.map((task) => task.id)).toContain(id);
  });
});

describe('stream resume over REST', () => {
  /** A proxy that cuts the first `message:stream` after `k` events and passes the rest. */
  async function cuttingProxy(k: number) {
    let cut = false;
    return startFaultProxy(server.url, (request): Fault => {
      if (!cut && request.url.endsWith('/message:stream')) {
        cut = true;
        return { kind: 'cut', afterEvents: k };
      }
      return PASS;
    });
  }

  it('resumes a stream cut after every k events and delivers each event once', async () => {
    const reference = describeAll(
      await collect((await restClient()).sendStreamingMessage(text('stream 3'))),
    );
    expect(reference).toHaveLength(6);
    for (let k = 1; k < reference.length; k++) {
      const proxy = await cuttingProxy(k);
      const client = await restClient(proxy.url + '/agents/test');
      expect(client.selectedInterface.url).toBe(`${proxy.url}/agents/test`);
      const events = describeAll(await collect(client.sendStreamingMessage(text('stream 3'))));
      expect(events, `cut after ${k} events`).toEqual(reference);
      const resumes = proxy.requests.filter((request) => request.url.endsWith(':subscribe'));
      expect(resumes, `cut after ${k} events`).toHaveLength(1);
      expect(resumes[0]?.method).toBe('GET');
      expect(resumes[0]?.headers['last-event-id']).toBe(String(k));
    }
  });
});
