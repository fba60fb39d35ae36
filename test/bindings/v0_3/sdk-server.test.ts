/**
 * Tandem's client against a server that speaks only A2A 0.3: the official JS SDK's last 0.3
 * release (`sdk-v03-server.ts`), with its 0.3 card. The client finds the
 * card, picks the 0.3 JSON-RPC interface, and hands back 1.0 values and typed errors for every
 * operation, streaming and subscribing included.
 *
 * What the SDK does that the translation has to meet: its streams carry no SSE `id:` (so a
 * dropped stream cannot resume with `Last-Event-ID`), it answers `final: true` on the last status
 * update and keeps ids of its own for push configs.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCardResolver,
  createClient,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  textOf,
  type A2AClient,
} from '../../../src/client.js';
import { startSdkV03Server, type SdkV03Server } from './sdk-v03-server.js';

let server: SdkV03Server;
let base: string;
let client: A2AClient;

beforeAll(async () => {
  server = await startSdkV03Server();
  base = server.url;
  client = await createClient(base, { cardResolver: createCardResolver() });
});

afterAll(() => server.close());

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
