/**
 * Tandem's client against a server that speaks only A2A 0.3: the official JS SDK's last 0.3
 * release (`a2a-sdk-v03`), built as its samples build one — an `AgentExecutor` publishing to the
 * event bus, a `DefaultRequestHandler`, `A2AExpressApp` — with its 0.3 card. The client finds the
 * card, picks the 0.3 JSON-RPC interface, and hands back 1.0 values and typed errors for every
 * operation, streaming and subscribing included.
 *
 * What the SDK does that the translation has to meet: its streams carry no SSE `id:` (so a
 * dropped stream cannot resume with `Last-Event-ID`), it answers `final: true` on the last status
 * update and keeps ids of its own for push configs.
 */

import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentCard as V03Card, Message as V03Message } from 'a2a-sdk-v03';
import {
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from 'a2a-sdk-v03/server';
import { A2AExpressApp } from 'a2a-sdk-v03/server/express';
import {
  createCardResolver,
  createClient,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  textOf,
  type A2AClient,
} from '../../../src/client.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** `reply <s>`: a message; `ask`: input-required; `wait`: works until canceled; else 3 chunks. */
class Executor implements AgentExecutor {
  readonly #canceled = new Set<string>();

  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const text = context.userMessage.parts
      .map((part) => (part.kind === 'text' ? part.text : ''))
      .join('');
    const { taskId, contextId } = context;
    if (text.startsWith('reply ')) {
      const reply: V03Message = {
        kind: 'message',
        messageId: crypto.randomUUID(),
        role: 'agent',
        contextId,
        parts: [{ kind: 'text', text: text.slice(6) }],
      };
      bus.publish(reply);
      bus.finished();
      return;
    }
    if (context.task === undefined) {
      bus.publish({
        kind: 'task',
        id: taskId,
        contextId,
        status: { state: 'submitted', timestamp: new Date().toISOString() },
        history: [context.userMessage],
      });
    }
    const status = (
      state: 'working' | 'completed' | 'canceled' | 'input-required',
      final: boolean,
    ) =>
      bus.publish({
        kind: 'status-update',
        taskId,
        contextId,
        final,
        status: { state, timestamp: new Date().toISOString() },
      });
    if (context.task !== undefined) {
      bus.publish({
        kind: 'artifact-update',
        taskId,
        contextId,
        artifact: { artifactId: 'answer', parts: [{ kind: 'text', text: `Hello, ${text}` }] },
      });
      status('completed', true);
      bus.finished();
      return;
    }
    if (text === 'ask') {
      status('input-required', true);
      bus.finished();
      return;
    }
    status('working', false);
    if (text === 'wait') {
      while (!this.#canceled.has(taskId)) await sleep(5);
      status('canceled', true);
      bus.finished();
      return;
    }
    for (let i = 0; i < 3; i++) {
      bus.publish({
        kind: 'artifact-update',
        taskId,
        contextId,
        append: i > 0,
        lastChunk: i === 2,
        artifact: {
          artifactId: 'chunks',
          parts: [
            i === 1 ? { kind: 'data', data: { n: i } } : { kind: 'text', text: `chunk-${i}` },
          ],
        },
      });
      await sleep(2);
    }
    status('completed', true);
    bus.finished();
  }

  cancelTask(taskId: string): Promise<void> {
    this.#canceled.add(taskId);
    return Promise.resolve();
  }
}

let server: Server;
let base: string;
let client: A2AClient;

beforeAll(async () => {
  const app = express();
  const holder: { card?: V03Card } = {};
  server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  holder.card = {
    protocolVersion: '0.3.0',
    name: 'SDK 0.3 agent',
    description: 'The official JS SDK 0.3 serving a test executor',
    url: `${base}/a2a`,
    preferredTransport: 'JSONRPC',
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'test', name: 'Test', description: 'Test commands', tags: ['test'] }],
  };
  const handler = new DefaultRequestHandler(holder.card, new InMemoryTaskStore(), new Executor());
  new A2AExpressApp(handler).setupRoutes(app, '/a2a');
  // The SDK serves its card below the JSON-RPC path; agents put it at the root too.
  app.get('/.well-known/agent-card.json', (_req, res) => void res.json(holder.card));
  app.get('/legacy/.well-known/agent.json', (_req, res) => void res.json(holder.card));
  client = await createClient(base, { cardResolver: createCardResolver() });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('Tandem client → official 0.3 server', () => {
  it('reads the 0.3 card and picks its 0.3 interface', () => {
    expect(client.selectedInterface).toEqual({
      url: `${base}/a2a`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '0.3',
    });
    expect(client.card.capabilities.streaming).toBe(true);
  });

  it('finds a card served only at the legacy /.well-known/agent.json', async () => {
    const legacy = await createClient(`${base}/legacy`, { cardResolver: createCardResolver() });
    expect(legacy.card.name).toBe('SDK 0.3 agent');
    expect(legacy.selectedInterface.protocolVersion).toBe('0.3');
  });

  it('sends a message and gets a 1.0 task', async () => {
    const task = await client.send('chunks please');
    expect(task).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' } });
    if (!('status' in task)) throw new Error('expected a task');
    expect(task.artifacts?.[0]?.parts).toEqual([
      { text: 'chunk-0' },
      { data: { n: 1 } },
      { text: 'chunk-2' },
    ]);
    const got = await client.getTask({ id: task.id, historyLength: 10 });
    expect(got.status.state).toBe('TASK_STATE_COMPLETED');
    expect(got.history?.[0]?.role).toBe('ROLE_USER');
  });

  it('gets a direct reply as a 1.0 message', async () => {
    const reply = await client.send('reply hi');
    expect(reply).toMatchObject({ role: 'ROLE_AGENT', parts: [{ text: 'hi' }] });
  });

  it('continues an input-required task', async () => {
    const asked = await client.send('ask');
    if (!('status' in asked)) throw new Error('expected a task');
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const done = await client.sendMessage({
      message: { parts: [{ text: 'Ada' }], taskId: asked.id, contextId: asked.contextId ?? '' },
    });
    expect(done.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(textOf(done.task?.artifacts?.[0]?.parts ?? [])).toBe('Hello, Ada');
  });

  it('streams 1.0 events and ends at the final one', async () => {
    const events: string[] = [];
    for await (const event of client.sendStreamingMessage({
      message: { parts: [{ text: 'go' }] },
    })) {
      events.push(Object.keys(event).join());
    }
    expect(events[0]).toBe('task');
    expect(events.filter((e) => e === 'artifactUpdate')).toHaveLength(3);
    expect(events.at(-1)).toBe('statusUpdate');
  });

  it('subscribes to a running task and cancels it', async () => {
    const started = await client.sendMessage({
      message: { parts: [{ text: 'wait' }] },
      configuration: { returnImmediately: true },
    });
    const id = started.task?.id as string;
    const stream = client.subscribeToTask({ id });
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of stream) {
        seen.push(event.statusUpdate?.status.state ?? Object.keys(event).join());
      }
    })();
    const canceled = await client.cancelTask({ id });
    expect(['TASK_STATE_CANCELED', 'TASK_STATE_WORKING']).toContain(canceled.status.state);
    await reading;
    expect(seen.at(-1)).toBe('TASK_STATE_CANCELED');
  });

  it('hands back typed errors', async () => {
    await expect(client.getTask({ id: 'no-such-task' })).rejects.toBeInstanceOf(TaskNotFoundError);
    const done = await client.send('chunks');
    if (!('status' in done)) throw new Error('expected a task');
    await expect(client.cancelTask({ id: done.id })).rejects.toBeInstanceOf(TaskNotCancelableError);
    await expect(client.listTasks({})).rejects.toBeInstanceOf(UnsupportedOperationError);
  });
});
