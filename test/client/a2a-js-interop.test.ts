/**
 * Interop with the official JS SDK (`@a2a-js/sdk` 1.3.0): a server built the way its samples
 * build one — an `AgentExecutor` publishing task, status and artifact events to the event bus, a
 * `DefaultRequestHandler`, and its Express handlers for the card, JSON-RPC and HTTP+JSON — driven
 * by Tandem's client over both bindings.
 *
 * Deviations of the SDK from the spec found here (the client is tolerant only where the spec
 * allows it; see each test):
 * - its event streams carry no SSE `id:`, so a dropped stream cannot be resumed with
 *   `Last-Event-ID` (the client reports the drop instead);
 * - HTTP+JSON `DeleteTaskPushNotificationConfig` answers `204 No Content` instead of an `Empty`
 *   JSON body, and errors inside a REST stream are sent as `event: error` with a
 *   `google.rpc.Status` body, a format spec 11.7 does not define (the client reads both).
 */

import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AgentCard as SdkAgentCard,
  Message as SdkMessage,
  Task as SdkTask,
  TaskArtifactUpdateEvent as SdkArtifactUpdate,
  TaskStatusUpdateEvent as SdkStatusUpdate,
} from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import {
  agentCardHandler,
  jsonRpcHandler,
  restHandler,
  UserBuilder,
} from '@a2a-js/sdk/server/express';
import {
  createCardResolver,
  createClient,
  TaskNotCancelableError,
  TaskNotFoundError,
  textOf,
  type A2AClient,
} from '../../src/client.js';
import { collect, describeEvent, sleep } from './support.js';

/** Commands: `reply <s>` (a message), `wait` (works until canceled), else 3 chunks, `delay` ms apart. */
class TestExecutor implements AgentExecutor {
  readonly #canceled = new Set<string>();
  readonly #contexts = new Map<string, string>();

  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const text = context.userMessage.parts
      .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
      .join('');
    const { taskId, contextId } = context;
    if (text.startsWith('reply ')) {
      const reply = {
        messageId: crypto.randomUUID(),
        role: 'ROLE_AGENT',
        contextId,
        parts: [{ text: text.slice(6) }],
      };
      bus.publish(AgentEvent.message(SdkMessage.fromJSON(reply)));
      bus.finished();
      return;
    }
    this.#contexts.set(taskId, contextId);
    if (context.task === undefined) {
      const task = { id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED' } };
      bus.publish(AgentEvent.task(SdkTask.fromJSON(task)));
    }
    bus.publish(this.#status(taskId, 'TASK_STATE_WORKING'));
    if (text === 'wait') {
      while (!this.#canceled.has(taskId)) await sleep(10);
      bus.finished();
      return;
    }
    const delay = Number(text.split(' ')[1] ?? '0');
    for (let i = 0; i < 3; i++) {
      await sleep(delay);
      const update = {
        taskId,
        contextId,
        artifact: { artifactId: 'result', parts: [{ text: `chunk-${i}` }] },
        append: i > 0,
        lastChunk: i === 2,
      };
      bus.publish(AgentEvent.artifactUpdate(SdkArtifactUpdate.fromJSON(update)));
    }
    bus.publish(this.#status(taskId, 'TASK_STATE_COMPLETED'));
    bus.finished();
  }

  cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    this.#canceled.add(taskId);
    bus.publish(this.#status(taskId, 'TASK_STATE_CANCELED'));
    bus.finished();
    return Promise.resolve();
  }

  #status(taskId: string, state: string) {
    const update = { taskId, contextId: this.#contexts.get(taskId) ?? '', status: { state } };
    return AgentEvent.statusUpdate(SdkStatusUpdate.fromJSON(update));
  }
}

let server: Server;
let baseUrl: string;

beforeAll(async () => {
  const card = SdkAgentCard.fromJSON({
    name: 'a2a-js agent',
    description: 'An agent built with the official SDK',
    supportedInterfaces: [],
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'chunks', name: 'Chunks', description: 'Streams chunks', tags: ['test'] }],
  });
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new TestExecutor());
  const app = express();
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  const userBuilder = UserBuilder.noAuthentication;
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder }));
  app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder }));
  server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The interfaces name the port, known only now; the handler serves this same object.
  card.supportedInterfaces.push(
    {
      url: `${baseUrl}/a2a/jsonrpc`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
      tenant: '',
    },
    {
      url: `${baseUrl}/a2a/rest`,
      protocolBinding: 'HTTP+JSON',
      protocolVersion: '1.0',
      tenant: '',
    },
  );
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const message = (text: string) => ({ message: { parts: [{ text }] } });

describe.each(['JSONRPC', 'HTTP+JSON'])('Tandem client against @a2a-js/sdk over %s', (binding) => {
  const connect = (): Promise<A2AClient> =>
    createClient(baseUrl, { bindings: [binding], cardResolver: createCardResolver() });

  it('selects the interface from the SDK card', async () => {
    const client = await connect();
    expect(client.selectedInterface.protocolBinding).toBe(binding);
    expect(client.card.name).toBe('a2a-js agent');
  });

  it('sends a message', async () => {
    const client = await connect();
    const response = await client.sendMessage(message('chunks 0'));
    expect(response.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(textOf(response.task!)).toBe('chunk-0\nchunk-1\nchunk-2');
    const reply = await client.sendMessage(message('reply hi'));
    expect(reply.message?.parts).toEqual([{ text: 'hi' }]);
  });

  it('streams a message', async () => {
    const client = await connect();
    const events = await collect(client.sendStreamingMessage(message('chunks 5')));
    expect(events.map(describeEvent)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'artifact:chunk-0',
      'artifact:chunk-1+append',
      'artifact:chunk-2+append',
      'status:TASK_STATE_COMPLETED',
    ]);
    const answer = await client.send('chunks 0');
    expect(textOf(answer)).toBe('chunk-0\nchunk-1\nchunk-2');
  });

  it('gets and lists tasks', async () => {
    const client = await connect();
    const task = (await client.sendMessage(message('chunks 0'))).task!;
    const fetched = await client.getTask({ id: task.id, historyLength: 1 });
    expect(fetched.id).toBe(task.id);
    expect(fetched.status.state).toBe('TASK_STATE_COMPLETED');
    const page = await client.listTasks({
      contextId: task.contextId ?? '',
      includeArtifacts: true,
    });
    expect(page.tasks.map((t) => t.id)).toEqual([task.id]);
    await expect(client.getTask({ id: 'missing' })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('cancels a task', async () => {
    const client = await connect();
    const running = await client.sendMessage({
      ...message('wait'),
      configuration: { returnImmediately: true },
    });
    const canceled = await client.cancelTask({ id: running.task!.id });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    // The SDK answers a repeated cancel with the canceled task (spec 3.3.1 calls cancel
    // idempotent); Tandem's server answers TaskNotCancelableError (spec 3.1.5). Both conform.
    const again = await client.cancelTask({ id: running.task!.id });
    expect(again.status.state).toBe('TASK_STATE_CANCELED');
    const done = (await client.sendMessage(message('chunks 0'))).task!;
    const error = await client.cancelTask({ id: done.id }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskNotCancelableError);
  });

  it('subscribes to a task', async () => {
    const client = await connect();
    const running = await client.sendMessage({
      ...message('chunks 40'),
      configuration: { returnImmediately: true },
    });
    const events = await collect(client.subscribeToTask({ id: running.task!.id }));
    expect(events[0]?.task?.id).toBe(running.task!.id);
    expect(events.map(describeEvent).at(-1)).toBe('status:TASK_STATE_COMPLETED');
  });
});

describe('tenants with @a2a-js/sdk', () => {
  it('routes a tenant through the REST path prefix and the JSON-RPC params', async () => {
    const base = await createClient(baseUrl, { cardResolver: createCardResolver() });
    for (const binding of ['HTTP+JSON', 'JSONRPC']) {
      const declared = base.card.supportedInterfaces.find((i) => i.protocolBinding === binding)!;
      const card = { ...base.card, supportedInterfaces: [{ ...declared, tenant: 'acme' }] };
      const tenantClient = await createClient(baseUrl, { card });
      const task = (await tenantClient.sendMessage(message('chunks 0'))).task!;
      expect((await tenantClient.getTask({ id: task.id })).id).toBe(task.id);
      const plain = await createClient(baseUrl, {
        bindings: [binding],
        cardResolver: createCardResolver(),
      });
      await expect(plain.getTask({ id: task.id })).rejects.toBeInstanceOf(TaskNotFoundError);
    }
  });
});
