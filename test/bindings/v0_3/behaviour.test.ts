/**
 * The behaviour suite's core cases over A2A 0.3: Tandem's client held to the 0.3 JSON-RPC,
 * HTTP+JSON or gRPC interface of a `--compat 0.3` server (the card it is given lists only that
 * one; for gRPC, `a2a.v1.A2AService` beside the 1.0 service on the gRPC port), so
 * that every call crosses the translation twice — 1.0 → 0.3 in the client, 0.3 → 1.0 in the
 * server, and back — over every store. Sending (blocking, non-blocking, direct replies,
 * multi-turn), streaming, subscribing with resume after an event id, cancel, errors, the
 * extended card.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createClient,
  TaskNotCancelableError,
  TaskNotFoundError,
  PushNotificationNotSupportedError,
  textOf,
  type A2AClient,
} from '../../../src/client.js';
import type { AgentCard, StreamResponse, Task } from '../../../src/index.js';
import {
  createA2AServer,
  createNodeServer,
  createRequestHandler,
  createTaskRuntime,
  type A2AServer,
  type TaskRuntime,
} from '../../../src/server.js';
import { compatV03 } from '../../../src/server-compat.js';
import { clientTestAgent, extensionAgent, REQUIRED_EXTENSION } from '../../support/agents.js';
import { describeMatrix } from '../../support/matrix.js';
import { openStore, type OpenedStore } from '../../support/stores.js';

describeMatrix(
  'A2A 0.3 client against --compat 0.3',
  ({ binding, store: storeName }) => {
    const protocolBinding =
      binding === 'rest' ? 'HTTP+JSON' : binding === 'grpc' ? 'GRPC' : 'JSONRPC';
    let store: OpenedStore;
    let runtime: TaskRuntime;
    let server: A2AServer;
    let client: A2AClient;
    let card: AgentCard;

    beforeAll(async () => {
      store = await openStore(storeName);
      runtime = createTaskRuntime({ store: store.store });
      await runtime.start();
      const handler = createRequestHandler({ agent: clientTestAgent, runtime });
      // One server: the card at the HTTP port lists the gRPC interfaces, 0.3 on every binding.
      server = createA2AServer({
        agents: [{ path: '', handler }],
        http: { heartbeatMs: 0 },
        grpc: binding === 'grpc' ? {} : undefined,
        compat: compatV03(),
      });
      const { http } = await server.listen();
      const base = (http?.url ?? '').replace(/\/$/, '');
      const served = (await (
        await fetch(`${base}/.well-known/agent-card.json`)
      ).json()) as AgentCard;
      card = {
        ...served,
        supportedInterfaces: served.supportedInterfaces.filter(
          (i) => i.protocolVersion === '0.3' && i.protocolBinding === protocolBinding,
        ),
      };
      client = await createClient(base, { card });
    });

    afterAll(async () => {
      await server.shutdown({ deadlineMs: 500 });
      await runtime.close();
      await store.dispose();
    });

    function taskOf(value: unknown): Task {
      expect(value).toHaveProperty('status');
      return value as Task;
    }

    it('talks over the 0.3 interface', () => {
      expect(client.selectedInterface.protocolVersion).toBe('0.3');
      expect(client.selectedInterface.protocolBinding).toBe(protocolBinding);
    });

    it('sends and waits for the completed task', async () => {
      const task = taskOf(await client.send('echo hello'));
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(textOf(task.artifacts?.[0]?.parts ?? [])).toBe('hello');
      const got = await client.getTask({ id: task.id });
      expect(got).toMatchObject({ id: task.id, contextId: task.contextId });
      expect(got.history?.[0]).toMatchObject({
        role: 'ROLE_USER',
        parts: [{ text: 'echo hello' }],
      });
    });

    // An agent that works until canceled: what comes back is the task while it runs, whatever
    // the store's speed (the runtime answers after the agent's first write, which tells a task
    // from a direct reply).
    it('returns at once when asked to, while the task goes on', async () => {
      const started = await client.sendMessage({
        message: { parts: [{ text: 'wait' }] },
        configuration: { returnImmediately: true },
      });
      const id = started.task?.id as string;
      expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(started.task?.status.state);
      expect((await client.getTask({ id })).status.state).toBe('TASK_STATE_WORKING');
      await client.cancelTask({ id });
      // Read from the log (a finished task's log replays).
      const events: StreamResponse[] = [];
      for await (const event of client.subscribeToTask({ id }, { lastEventId: '1' })) {
        events.push(event);
      }
      expect(events.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_CANCELED');
    });

    it('gets a direct reply', async () => {
      expect(await client.send('reply hi there')).toMatchObject({
        role: 'ROLE_AGENT',
        parts: [{ text: 'hi there' }],
      });
    });

    it('keeps every kind of part', async () => {
      const task = taskOf(await client.send('files'));
      const parts = task.artifacts?.flatMap((a) => a.parts) ?? [];
      expect(parts.some((p) => p.text !== undefined)).toBe(true);
      expect(parts.some((p) => p.data !== undefined)).toBe(true);
      expect(parts.some((p) => p.url !== undefined || p.raw !== undefined)).toBe(true);
    });

    it('continues an input-required task in its context', async () => {
      const asked = taskOf(await client.send('ask'));
      expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const done = taskOf(
        await client.send('Grace', { taskId: asked.id, contextId: asked.contextId ?? '' }),
      );
      expect(done.status.state).toBe('TASK_STATE_COMPLETED');
      expect(textOf(done.artifacts?.at(-1)?.parts ?? [])).toBe('Hello, Grace');
    });

    it('streams the task, its chunks and the final status', async () => {
      const events: StreamResponse[] = [];
      for await (const event of client.sendStreamingMessage({
        message: { parts: [{ text: 'stream 4' }] },
      })) {
        events.push(event);
      }
      expect(events[0]?.task).toBeDefined();
      expect(events.filter((e) => e.artifactUpdate !== undefined)).toHaveLength(4);
      expect(events.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
      const id = events[0]?.task?.id as string;
      const task = await client.getTask({ id });
      expect(textOf(task.artifacts?.[0]?.parts ?? [])).toBe('chunk-0\nchunk-1\nchunk-2\nchunk-3');
    });

    it('resumes a subscription after an event id', async () => {
      const started = await client.sendMessage({
        message: { parts: [{ text: 'stream 3' }] },
        configuration: { returnImmediately: false },
      });
      const id = started.task?.id as string;
      const all: StreamResponse[] = [];
      for await (const event of client.subscribeToTask({ id }, { lastEventId: '1' })) {
        all.push(event);
      }
      // Resumed after the first event: the task snapshot is not sent again.
      expect(all.length).toBeGreaterThan(0);
      expect(all.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
      expect(all.some((e) => e.task !== undefined)).toBe(false);
    });

    it('cancels a running task', async () => {
      const started = await client.sendMessage({
        message: { parts: [{ text: 'wait' }] },
        configuration: { returnImmediately: true },
      });
      const id = started.task?.id as string;
      const canceled = await client.cancelTask({ id });
      expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
      await expect(client.cancelTask({ id })).rejects.toBeInstanceOf(TaskNotCancelableError);
    });

    it('hands back typed errors', async () => {
      await expect(client.getTask({ id: 'nope' })).rejects.toBeInstanceOf(TaskNotFoundError);
      await expect(
        client.createTaskPushNotificationConfig({ taskId: 'nope', url: 'https://x.example/hook' }),
      ).rejects.toBeInstanceOf(PushNotificationNotSupportedError);
    });

    it('gets the extended card', async () => {
      const extended = await client.getExtendedAgentCard();
      expect(extended.name).toBe('Client test agent (extended)');
      expect(extended.supportedInterfaces.some((i) => i.protocolVersion === '0.3')).toBe(true);
    });
  },
  { bindings: ['jsonrpc', 'rest', 'grpc'] },
);

describe('a 1.0 card with a 0.3 interface', () => {
  it('is called over 1.0 when it has a 1.0 interface', async () => {
    const server = createNodeServer({
      agents: [{ path: '', handler: createRequestHandler({ agent: clientTestAgent }) }],
      heartbeatMs: 0,
      compat: compatV03(),
    });
    const { url } = await server.listen({ port: 0, host: '127.0.0.1' });
    try {
      const client = await createClient(url);
      expect(client.selectedInterface.protocolVersion).toBe('1.0');
    } finally {
      await server.shutdown({ deadlineMs: 500 });
    }
  });
});

describe('extensions over 0.3', () => {
  it('reads X-A2A-Extensions, echoes the activated ones, and refuses without a required one', async () => {
    const server = createNodeServer({
      agents: [{ path: '', handler: createRequestHandler({ agent: extensionAgent }) }],
      heartbeatMs: 0,
      compat: compatV03(),
    });
    const { url } = await server.listen({ port: 0, host: '127.0.0.1' });
    const call = (headers: Record<string, string>) =>
      fetch(`${url.replace(/\/$/, '')}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: {
            message: {
              kind: 'message',
              role: 'user',
              messageId: 'm-1',
              parts: [{ kind: 'text', text: 'x' }],
            },
          },
        }),
      });
    try {
      const served = await call({ 'x-a2a-extensions': REQUIRED_EXTENSION });
      expect(served.headers.get('x-a2a-extensions')).toBe(REQUIRED_EXTENSION);
      expect(((await served.json()) as { result: { kind: string } }).result.kind).toBe('message');
      const refused = (await (await call({})).json()) as { error: { code: number } };
      expect(refused.error.code).toBe(-32008);
    } finally {
      await server.shutdown({ deadlineMs: 500 });
    }
  });
});
