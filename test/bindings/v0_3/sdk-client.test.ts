/**
 * A Tandem server with `compat: compatV03()` driven by the official JS SDK's last 0.3 release
 * (`a2a-sdk-v03`, i.e. `@a2a-js/sdk@0.3.14`) — someone else's reading of 0.3 — over JSON-RPC:
 * the card (also at the legacy path), every method, streams with `final`, resubscribe, errors.
 * And the same server still answers 1.0 exactly as without compat.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient } from 'a2a-sdk-v03/client';
import type {
  AgentCard as V03Card,
  Message as V03Message,
  Task as V03Task,
  TaskStatusUpdateEvent as V03StatusUpdate,
} from 'a2a-sdk-v03';
import {
  bearerAuthentication,
  CredentialList,
  createNodeServer,
  createRequestHandler,
  type A2ANodeServer,
} from '../../../src/server.js';
import { compatV03 } from '../../../src/server-compat.js';
import { createClient } from '../../../src/client.js';
import { clientTestAgent } from '../../support/agents.js';

let server: A2ANodeServer;
let base: string;
let sdk: A2AClient;

beforeAll(async () => {
  server = createNodeServer({
    agents: [{ path: '', handler: createRequestHandler({ agent: clientTestAgent }) }],
    heartbeatMs: 0,
    compat: compatV03(),
  });
  base = (await server.listen({ port: 0, host: '127.0.0.1' })).url.replace(/\/$/, '');
  sdk = await A2AClient.fromCardUrl(`${base}/.well-known/agent-card.json`);
});

afterAll(async () => {
  await server.shutdown({ deadlineMs: 500 });
});

function message(text: string, extra: Partial<V03Message> = {}): V03Message {
  return {
    kind: 'message',
    role: 'user',
    messageId: crypto.randomUUID(),
    parts: [{ kind: 'text', text }],
    ...extra,
  };
}

function resultOf<T>(response: unknown): T {
  const r = response as { result?: T; error?: { code: number; message: string } };
  if (r.error !== undefined) throw new Error(`JSON-RPC error ${r.error.code}: ${r.error.message}`);
  return r.result as T;
}

interface RpcResponse {
  readonly id: unknown;
  readonly result?: unknown;
  readonly error?: { code: number; message: string };
}

/** A raw 0.3 JSON-RPC call, as a 0.3 client sends it (no A2A-Version). */
async function rpc(method: string, params?: unknown): Promise<RpcResponse> {
  const response = await fetch(`${base}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      ...(params === undefined ? {} : { params }),
    }),
  });
  return (await response.json()) as RpcResponse;
}

function errorOf(response: unknown): { code: number; message: string } {
  const r = response as { error?: { code: number; message: string } };
  expect(r.error).toBeDefined();
  return r.error as { code: number; message: string };
}

describe('the card with --compat 0.3', () => {
  it('carries the 0.3 fields beside the 1.0 ones, also at /.well-known/agent.json', async () => {
    const card = (await (await fetch(`${base}/.well-known/agent-card.json`)).json()) as V03Card & {
      supportedInterfaces: { url: string; protocolBinding: string; protocolVersion: string }[];
    };
    expect(card).toMatchObject({
      protocolVersion: '0.3.0',
      url: `${base}/a2a`,
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [
        { url: `${base}/a2a`, transport: 'JSONRPC' },
        { url: base, transport: 'HTTP+JSON' },
      ],
      supportsAuthenticatedExtendedCard: true,
    });
    expect(card.supportedInterfaces).toEqual([
      { url: `${base}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${base}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: base, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: base, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ]);
    const legacy = await (await fetch(`${base}/.well-known/agent.json`)).json();
    expect(legacy).toEqual(card);
  });
});

describe('the official 0.3 client', () => {
  it('sends a message and gets the completed task in 0.3 shapes', async () => {
    const task = resultOf<V03Task>(await sdk.sendMessage({ message: message('echo hi') }));
    expect(task.kind).toBe('task');
    expect(task.status.state).toBe('completed');
    expect(task.artifacts?.[0]?.parts).toEqual([{ kind: 'text', text: 'hi' }]);
    expect(task.history?.[0]).toMatchObject({ kind: 'message', role: 'user' });
    const got = resultOf<V03Task>(await sdk.getTask({ id: task.id, historyLength: 0 }));
    expect(got).toMatchObject({ kind: 'task', id: task.id, status: { state: 'completed' } });
  });

  it('gets a direct reply as a 0.3 message', async () => {
    const reply = resultOf<V03Message>(await sdk.sendMessage({ message: message('reply yo') }));
    expect(reply).toMatchObject({
      kind: 'message',
      role: 'agent',
      parts: [{ kind: 'text', text: 'yo' }],
    });
  });

  it('continues an input-required task', async () => {
    const asked = resultOf<V03Task>(await sdk.sendMessage({ message: message('ask') }));
    expect(asked.status.state).toBe('input-required');
    const done = resultOf<V03Task>(
      await sdk.sendMessage({
        message: message('Ada', { taskId: asked.id, contextId: asked.contextId }),
      }),
    );
    expect(done.status.state).toBe('completed');
    expect(done.artifacts?.[0]?.parts).toEqual([{ kind: 'text', text: 'Hello, Ada' }]);
  });

  it('streams with kinds, final on the last status update', async () => {
    const events: unknown[] = [];
    for await (const event of sdk.sendMessageStream({ message: message('stream 3') })) {
      events.push(event);
    }
    const kinds = events.map((e) => (e as { kind: string }).kind);
    expect(kinds[0]).toBe('task');
    expect(kinds.filter((k) => k === 'artifact-update')).toHaveLength(3);
    const last = events.at(-1) as V03StatusUpdate;
    expect(last).toMatchObject({
      kind: 'status-update',
      final: true,
      status: { state: 'completed' },
    });
    const updates = events.filter((e) => (e as { kind: string }).kind === 'status-update');
    expect(updates.slice(0, -1).every((u) => (u as V03StatusUpdate).final === false)).toBe(true);
  });

  it('resubscribes to a running task and cancels it', async () => {
    const task = resultOf<V03Task>(
      await sdk.sendMessage({ message: message('wait'), configuration: { blocking: false } }),
    );
    expect(task.status.state).not.toBe('completed');
    const stream = sdk.resubscribeTask({ id: task.id });
    const first = await stream.next();
    expect((first.value as { kind: string }).kind).toBe('task');
    const canceled = resultOf<V03Task>(await sdk.cancelTask({ id: task.id }));
    expect(canceled.status.state).toBe('canceled');
    const rest: unknown[] = [];
    for await (const event of { [Symbol.asyncIterator]: () => stream }) rest.push(event);
    expect(rest.at(-1)).toMatchObject({
      kind: 'status-update',
      final: true,
      status: { state: 'canceled' },
    });
  });

  it('gets 0.3 error codes', async () => {
    const missing = errorOf(await sdk.getTask({ id: 'no-such-task' }));
    expect(missing.code).toBe(-32001);
    const done = resultOf<V03Task>(await sdk.sendMessage({ message: message('echo x') }));
    expect(errorOf(await sdk.cancelTask({ id: done.id })).code).toBe(-32002);
  });

  it('reaches the push config operations, translated to 1.0', async () => {
    const done = resultOf<V03Task>(await sdk.sendMessage({ message: message('echo x') }));
    // The agent declares no push support; once it does, these answer the configs.
    const set = await rpc('tasks/pushNotificationConfig/set', {
      taskId: done.id,
      pushNotificationConfig: { url: 'https://client.example.com/hook' },
    });
    expect(set.error?.code).toBe(-32003);
    for (const [method, params] of [
      ['tasks/pushNotificationConfig/get', { id: done.id }],
      ['tasks/pushNotificationConfig/list', { id: done.id }],
      ['tasks/pushNotificationConfig/delete', { id: done.id, pushNotificationConfigId: 'c' }],
    ] as const) {
      expect((await rpc(method, params)).error?.code, method).toBe(-32003);
    }
    const several = await rpc('tasks/pushNotificationConfig/set', {
      taskId: done.id,
      pushNotificationConfig: {
        url: 'https://client.example.com/hook',
        authentication: { schemes: ['Bearer', 'Basic'] },
      },
    });
    expect(several.error?.code).toBe(-32602);
    expect(several.error?.message).toContain(
      'params.pushNotificationConfig.authentication.schemes',
    );
  });

  it('gets the extended card with the 0.3 fields', async () => {
    const card = (await rpc('agent/getAuthenticatedExtendedCard')).result as V03Card;
    expect(card).toMatchObject({
      name: 'Client test agent (extended)',
      protocolVersion: '0.3.0',
      url: `${base}/a2a`,
    });
  });

  it('answers an unknown method with -32601 listing the 0.3 methods', async () => {
    const { error } = await rpc('tasks/list', {});
    expect(error?.code).toBe(-32601);
    expect(error?.message).toContain('message/send, message/stream');
    const methods = await rpc('tasks/nonsense', {});
    expect(methods.error?.code).toBe(-32601);
  });

  it('is refused with -32602 naming the 0.3 field for what 1.0 cannot hold', async () => {
    const response = await fetch(`${base}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'message/send',
        params: { message: { kind: 'message', role: 'robot', messageId: 'm', parts: [] } },
      }),
    });
    const body = (await response.json()) as {
      id: number;
      error: { code: number; message: string };
    };
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).toContain('params.message.role');
  });
});

describe('1.0 beside 0.3', () => {
  it('serves 1.0 clients as before, and refuses a 1.0 method without A2A-Version', async () => {
    const client = await createClient(base);
    const task = await client.send('echo still 1.0');
    expect(task).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' } });
    const response = await fetch(`${base}/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
    });
    const body = (await response.json()) as { error: { code: number } };
    expect(body.error.code).toBe(-32009);
  });
});

describe('security schemes with --compat 0.3', () => {
  it('carry both shapes, and security beside securityRequirements', async () => {
    const tokens = new CredentialList({
      kind: 'inline',
      text: 'ops a-long-enough-secret-token-for-the-test-0123456789',
      label: 'test',
    });
    const secured = createNodeServer({
      agents: [{ path: '', handler: createRequestHandler({ agent: clientTestAgent }) }],
      heartbeatMs: 0,
      compat: compatV03(),
      authenticate: bearerAuthentication(tokens),
    });
    const { url } = await secured.listen({ port: 0, host: '127.0.0.1' });
    try {
      const card = (await (
        await fetch(`${url.replace(/\/$/, '')}/.well-known/agent.json`)
      ).json()) as {
        securitySchemes: Record<string, Record<string, unknown>>;
        security: unknown;
        securityRequirements: unknown;
      };
      const [name, scheme] = Object.entries(card.securitySchemes)[0] as [
        string,
        Record<string, unknown>,
      ];
      expect(scheme).toMatchObject({
        type: 'http',
        scheme: expect.stringMatching(/^bearer$/i) as unknown,
        httpAuthSecurityScheme: { scheme: expect.stringMatching(/^bearer$/i) as unknown },
      });
      expect(card.security).toEqual([{ [name]: [] }]);
      expect(card.securityRequirements).toEqual([{ schemes: { [name]: { list: [] } } }]);
      // A 0.3 call without the token is refused in JSON-RPC form, as 1.0 calls are.
      const refused = await fetch(`${url.replace(/\/$/, '')}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } }),
      });
      expect(refused.status).toBe(401);
    } finally {
      await secured.shutdown({ deadlineMs: 500 });
    }
  });
});
