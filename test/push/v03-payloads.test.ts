/**
 * A push config remembers the protocol version it was created with, on every store, and its
 * webhook gets that version's payload: the 0.3 Task object (`kind: "task"`, 0.3 §9.5) for a
 * config set up over 0.3 JSON-RPC (inline with `message/send`, or with
 * `tasks/pushNotificationConfig/set`), the 1.0 `StreamResponse` for one set up over 1.0 — to
 * real webhook receivers on loopback, from one `--compat 0.3` server.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type A2AClient } from '../../src/client.js';
import {
  createA2AServer,
  createPushNotifier,
  createRequestHandler,
  createTaskRuntime,
  type A2AServer,
  type PushNotifier,
  type TaskRuntime,
} from '../../src/server.js';
import { compatV03 } from '../../src/server-compat.js';
import { testAgent } from '../support/agents.js';
import { send } from '../support/messages.js';
import {
  STORE_NAMES,
  openStore,
  skipWithoutPostgres,
  type OpenedStore,
} from '../support/stores.js';
import { within } from '../support/sync.js';
import { startWebhookReceiver, type ReceivedPush } from '../support/webhook-receiver.js';

/** What a 0.3 webhook reads of a notification. */
interface V03TaskBody {
  readonly kind?: string;
  readonly id?: string;
  readonly contextId?: string;
  readonly status?: { readonly state?: string };
}

function v03Body(push: ReceivedPush): V03TaskBody {
  return JSON.parse(push.body) as V03TaskBody;
}

/** The index of the first request that tells of `state` (0.3 body), once it has arrived. */
async function untilV03State(
  hook: Awaited<ReturnType<typeof startWebhookReceiver>>,
  state: string,
): Promise<V03TaskBody> {
  for (let n = 1; ; n++) {
    await within(hook.received(n), 10_000, `webhook POST ${n} (waiting for a ${state} task)`);
    const body = v03Body(hook.requests[n - 1] as ReceivedPush);
    if (body.status?.state === state) return body;
  }
}

const AGENT = 'push-versions';

describe.each(STORE_NAMES)('push payloads by the version of the config [%s store]', (name) => {
  if (skipWithoutPostgres(name)) return;
  let store: OpenedStore;
  let runtime: TaskRuntime;
  let push: PushNotifier;
  let server: A2AServer;
  let base: string;
  let client: A2AClient;

  beforeAll(async () => {
    store = await openStore(name);
    runtime = createTaskRuntime({ store: store.store });
    await runtime.start();
    const compat = compatV03();
    push = createPushNotifier({ runtime, compat, allow: ['127.0.0.1'], scanMs: 100 });
    const handler = createRequestHandler({ agent: testAgent, agentName: AGENT, runtime, push });
    server = createA2AServer({ agents: [{ path: '', handler }], http: { heartbeatMs: 0 }, compat });
    const { http } = await server.listen();
    base = (http?.url ?? '').replace(/\/$/, '');
    client = await createClient(base);
  });

  afterAll(async () => {
    await server?.shutdown({ deadlineMs: 500 });
    await push?.close();
    await runtime?.close();
    await store?.dispose();
  });

  async function rpc03(method: string, params: unknown): Promise<Record<string, unknown>> {
    const response = await fetch(`${base}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await response.json()) as { result?: Record<string, unknown>; error?: unknown };
    expect(body.error, `${method} over 0.3`).toBeUndefined();
    return body.result as Record<string, unknown>;
  }

  function message03(text: string, taskId?: string) {
    return {
      kind: 'message',
      role: 'user',
      messageId: crypto.randomUUID(),
      parts: [{ kind: 'text', text }],
      ...(taskId === undefined ? {} : { taskId }),
    };
  }

  it('posts the 0.3 Task object to a config given inline with a 0.3 message/send', async () => {
    const hook = await startWebhookReceiver();
    try {
      const task = await rpc03('message/send', {
        message: message03('stream 2'),
        configuration: {
          blocking: true,
          pushNotificationConfig: { url: hook.url, token: 'token-03' },
        },
      });
      const final = await untilV03State(hook, 'completed');
      expect(final).toMatchObject({ kind: 'task', id: task.id, contextId: task.contextId });
      for (const request of hook.requests) {
        expect(v03Body(request).kind).toBe('task');
        expect(request.headers['content-type']).toBe('application/json');
        expect(request.headers['x-a2a-notification-token']).toBe('token-03');
      }
      // The first POST is the task as created; artifact chunks are not posted to 0.3 webhooks.
      expect(v03Body(hook.requests[0] as ReceivedPush).status?.state).toBe('submitted');
      // The store remembers the version (in the config's JSON on the SQL stores).
      const stored = await store.store.push?.listConfigs(
        { agent: AGENT, tenant: '', owner: 'anonymous' },
        String(task.id),
        10,
      );
      expect(stored?.configs.map((c) => c.config.protocolVersion)).toEqual(['0.3']);
    } finally {
      await hook.close();
    }
  });

  it('posts the 0.3 Task object to a config set with tasks/pushNotificationConfig/set', async () => {
    const hook = await startWebhookReceiver();
    try {
      const task = await rpc03('message/send', { message: message03('ask') });
      expect((task.status as { state: string }).state).toBe('input-required');
      await rpc03('tasks/pushNotificationConfig/set', {
        taskId: task.id,
        pushNotificationConfig: { id: 'set-03', url: hook.url },
      });
      await rpc03('message/send', { message: message03('Ada', String(task.id)) });
      const final = await untilV03State(hook, 'completed');
      expect(final).toMatchObject({ kind: 'task', id: task.id });
      expect(hook.requests.every((r) => v03Body(r).kind === 'task')).toBe(true);
    } finally {
      await hook.close();
    }
  });

  it('posts the 1.0 StreamResponse to a config set up over 1.0', async () => {
    const hook = await startWebhookReceiver();
    try {
      const sent = await client.sendMessage(
        send('stream 2', {}, { taskPushNotificationConfig: { url: hook.url } }),
      );
      const task = sent.task;
      if (task === undefined) throw new Error('stream 2 answers a task');
      for (let n = 1; ; n++) {
        await within(hook.received(n), 10_000, `1.0 webhook POST ${n}`);
        const payload = hook.requests[n - 1]?.payload;
        if (payload?.statusUpdate?.status.state === 'TASK_STATE_COMPLETED') break;
      }
      expect(hook.requests[0]?.payload?.task?.id).toBe(task.id);
      const stored = await store.store.push?.listConfigs(
        { agent: AGENT, tenant: '', owner: 'anonymous' },
        task.id,
        10,
      );
      expect(stored?.configs.map((c) => c.config.protocolVersion)).toEqual([undefined]);
      expect(hook.requests.some((r) => r.payload?.artifactUpdate !== undefined)).toBe(true);
      for (const request of hook.requests) {
        expect(request.headers['content-type']).toBe('application/a2a+json');
        expect(JSON.parse(request.body)).not.toHaveProperty('kind');
      }
    } finally {
      await hook.close();
    }
  });
});

describe('a push notifier without the compat layer', () => {
  let store: OpenedStore;
  let runtime: TaskRuntime;
  let push: PushNotifier;
  let server: A2AServer;
  let base: string;

  beforeAll(async () => {
    store = await openStore('memory');
    runtime = createTaskRuntime({ store: store.store });
    await runtime.start();
    push = createPushNotifier({ runtime, allow: ['127.0.0.1'] });
    const handler = createRequestHandler({ agent: testAgent, runtime, push });
    server = createA2AServer({
      agents: [{ path: '', handler }],
      http: { heartbeatMs: 0 },
      compat: compatV03(),
    });
    base = ((await server.listen()).http?.url ?? '').replace(/\/$/, '');
  });

  afterAll(async () => {
    await server?.shutdown({ deadlineMs: 500 });
    await push?.close();
    await runtime?.close();
    await store?.dispose();
  });

  it('refuses a 0.3 config, storing no task, rather than posting 1.0 payloads to it', async () => {
    const response = await fetch(`${base}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            role: 'user',
            messageId: crypto.randomUUID(),
            parts: [{ kind: 'text', text: 'echo hi' }],
          },
          configuration: { pushNotificationConfig: { url: 'http://127.0.0.1:9/hook' } },
        },
      }),
    });
    const body = (await response.json()) as { id: unknown; error?: { message: string } };
    expect(body.id).toBe(7);
    expect(body.error?.message).toMatch(/payload of A2A 0\.3/);
    const listed = await store.store.listTasks(
      { agent: '', tenant: '', owner: null },
      { pageSize: 10 },
    );
    expect(listed.tasks).toEqual([]);
  });
});
