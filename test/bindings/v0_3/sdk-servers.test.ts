/**
 * Tandem's client against servers that speak only A2A 0.3: the official JS SDK's last 0.3
 * release (`sdk-v03-server.ts`), on each of its three bindings, each found through a 0.3 card
 * that lists it — JSON-RPC (the root card), HTTP+JSON (`restHandler`, the ProtoJSON bodies it
 * reads at `/v1/...`) and gRPC (`grpcService`, `a2a.v1.A2AService` with the 0.3 proto's
 * messages, the card's `url` a bare `host:port`). One suite runs unchanged over the three: the
 * client picks the interface and hands back 1.0 values and typed errors for every operation —
 * send, stream, get, cancel, resubscribe, push configs (not supported by this agent), the
 * extended card (none), `ListTasks` (no 0.3 method).
 *
 * What the SDK does that the translation has to meet: its streams carry no SSE `id:` (so a
 * dropped stream cannot resume with `Last-Event-ID`), it answers `final: true` on the last status
 * update, keeps ids of its own for push configs, and its gRPC errors are bare status codes.
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
  type AgentInterface,
} from '../../../src/client.js';
import { startSdkV03Server, type SdkV03Server } from './sdk-v03-server.js';

let server: SdkV03Server;

beforeAll(async () => {
  server = await startSdkV03Server({ grpc: true });
});

afterAll(() => server.close());

/** One binding of the SDK's server: where its card is, and the interface the client must pick. */
interface SdkDoor {
  readonly name: string;
  readonly cardPath: string;
  readonly selected: (server: SdkV03Server) => AgentInterface;
}

const DOORS: readonly SdkDoor[] = [
  {
    name: 'JSON-RPC',
    cardPath: '',
    selected: (s) => ({ url: `${s.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' }),
  },
  {
    name: 'HTTP+JSON',
    cardPath: '/rest-only',
    selected: (s) => ({
      url: `${s.url}/rest`,
      protocolBinding: 'HTTP+JSON',
      protocolVersion: '0.3',
    }),
  },
  {
    name: 'gRPC',
    cardPath: '/grpc-only',
    selected: (s) => ({
      url: s.grpcAddress ?? '',
      protocolBinding: 'GRPC',
      protocolVersion: '0.3',
    }),
  },
];

describe.each(DOORS)('Tandem client → official 0.3 $name server', (door) => {
  let client: A2AClient;

  beforeAll(async () => {
    client = await createClient(`${server.url}${door.cardPath}`, {
      cardResolver: createCardResolver(),
    });
  });

  it('reads the 0.3 card and picks its 0.3 interface', () => {
    expect(client.selectedInterface).toEqual(door.selected(server));
    expect(client.card.capabilities.streaming).toBe(true);
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

  it('hands back typed errors', async () => {
    await expect(client.getTask({ id: 'no-such-task' })).rejects.toBeInstanceOf(TaskNotFoundError);
    const done = await client.send('chunks');
    if (!('status' in done)) throw new Error('expected a task');
    await expect(client.cancelTask({ id: done.id })).rejects.toBeInstanceOf(TaskNotCancelableError);
    await expect(
      client.createTaskPushNotificationConfig({ taskId: done.id, url: 'https://x.example/hook' }),
    ).rejects.toBeInstanceOf(PushNotificationNotSupportedError);
    await expect(client.listTasks({})).rejects.toBeInstanceOf(UnsupportedOperationError);
  });

  it('gets a typed error for the extended card of an agent without one', async () => {
    // The SDK answers UnsupportedOperation (-32004; gRPC UNIMPLEMENTED) for an agent without one.
    await expect(client.getExtendedAgentCard()).rejects.toBeInstanceOf(UnsupportedOperationError);
  });
});

describe('Tandem client → official 0.3 server, what one binding has', () => {
  it('finds a card served only at the legacy /.well-known/agent.json', async () => {
    const legacy = await createClient(`${server.url}/legacy`, {
      cardResolver: createCardResolver(),
    });
    expect(legacy.card.name).toBe('SDK 0.3 agent');
    expect(legacy.selectedInterface.protocolVersion).toBe('0.3');
  });

  it('refuses cancel metadata over gRPC, which the 0.3 CancelTaskRequest cannot carry', async () => {
    const client = await createClient(`${server.url}/grpc-only`, {
      cardResolver: createCardResolver(),
    });
    await expect(client.cancelTask({ id: 'any', metadata: { why: 'test' } })).rejects.toThrow(
      /CancelTaskRequest has no metadata/,
    );
  });
});
