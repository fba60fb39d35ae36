/**
 * Tandem's client against the official JS SDK's 0.3 gRPC server (`grpcService` of
 * `a2a-sdk-v03/server/grpc`, in `sdk-v03-server.ts`), found through a 0.3 card that lists only
 * that interface (`url` a bare `host:port`, `preferredTransport: "GRPC"`): the client picks it,
 * calls `a2a.v1.A2AService` with the 0.3 proto's messages, and hands back 1.0 values and typed
 * errors read from the SDK's bare status codes — send, stream, get, cancel, resubscribe, push
 * configs (not supported by this agent), the extended card (none), `ListTasks` (no 0.3 method).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCardResolver,
  createClient,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  textOf,
  type A2AClient,
} from '../../../src/client.js';
import { startSdkV03Server, type SdkV03Server } from './sdk-v03-server.js';

let server: SdkV03Server;
let client: A2AClient;

beforeAll(async () => {
  server = await startSdkV03Server({ grpc: true });
  client = await createClient(`${server.url}/grpc-only`, { cardResolver: createCardResolver() });
});

afterAll(() => server.close());

describe('Tandem client → official 0.3 gRPC server', () => {
  it('reads the 0.3 card and picks its gRPC 0.3 interface', () => {
    expect(client.selectedInterface).toEqual({
      url: server.grpcAddress,
      protocolBinding: 'GRPC',
      protocolVersion: '0.3',
    });
  });

  it('sends a message and gets a 1.0 task, then gets it', async () => {
    const task = await client.send('chunks please');
    if (!('status' in task)) throw new Error('expected a task');
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
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
    expect(await client.send('reply hi')).toMatchObject({
      role: 'ROLE_AGENT',
      parts: [{ text: 'hi' }],
    });
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
    expect(started.task?.status.state).not.toBe('TASK_STATE_COMPLETED');
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of client.subscribeToTask({ id })) {
        seen.push(event.statusUpdate?.status.state ?? Object.keys(event).join());
      }
    })();
    const canceled = await client.cancelTask({ id });
    expect(['TASK_STATE_CANCELED', 'TASK_STATE_WORKING']).toContain(canceled.status.state);
    await reading;
    expect(seen.at(-1)).toBe('TASK_STATE_CANCELED');
  });

  it('hands back typed errors read from bare status codes', async () => {
    await expect(client.getTask({ id: 'no-such-task' })).rejects.toBeInstanceOf(TaskNotFoundError);
    const done = await client.send('chunks');
    if (!('status' in done)) throw new Error('expected a task');
    await expect(client.cancelTask({ id: done.id })).rejects.toBeInstanceOf(TaskNotCancelableError);
    await expect(
      client.createTaskPushNotificationConfig({ taskId: done.id, url: 'https://x.example/hook' }),
    ).rejects.toBeInstanceOf(PushNotificationNotSupportedError);
    await expect(client.listTasks({})).rejects.toBeInstanceOf(UnsupportedOperationError);
  });

  it('refuses cancel metadata, which the 0.3 CancelTaskRequest cannot carry', async () => {
    await expect(client.cancelTask({ id: 'any', metadata: { why: 'test' } })).rejects.toThrow(
      /CancelTaskRequest has no metadata/,
    );
  });

  it('gets a typed error for the extended card of an agent without one', async () => {
    // The SDK answers UNIMPLEMENTED (its -32004) for an agent without one.
    await expect(client.getExtendedAgentCard()).rejects.toBeInstanceOf(UnsupportedOperationError);
  });
});
