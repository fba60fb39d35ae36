import { describe, expect, it } from 'vitest';
import type { AgentCard } from '../../src/index.js';
import { createA2AHandler, createRequestHandler, defineAgent } from '../../src/server.js';
import { testCard } from '../support/agents.js';
import { readSse } from '../support/read-sse.js';
import { deferred } from '../support/sync.js';
import {
  A2A_HEADERS,
  firstTaskId,
  handlerFor,
  messageParams,
  type JsonRpcResponse,
} from './support.js';

const BASE = 'https://agent.example.com';

function rpcRequest(method: string, params: unknown, id: number | null = 1): Request {
  const body = JSON.stringify({ jsonrpc: '2.0', ...(id === null ? {} : { id }), method, params });
  return new Request(`${BASE}/a2a`, { method: 'POST', headers: A2A_HEADERS, body });
}

describe('createA2AHandler (fetch)', () => {
  const handle = createA2AHandler({
    agents: [{ path: '', handler: handlerFor() }],
    heartbeatMs: 0,
  });

  it('answers JSON-RPC calls like the node adapter', async () => {
    const response = await handle(rpcRequest('SendMessage', messageParams('echo fetch')));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = (await response.json()) as JsonRpcResponse;
    expect(body.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    const got = await handle(rpcRequest('GetTask', { id: body.result?.task?.id }));
    expect(((await got.json()) as JsonRpcResponse).result?.id).toBe(body.result?.task?.id);
  });

  it('answers a notification with 204', async () => {
    const response = await handle(rpcRequest('SendMessage', messageParams('echo n'), null));
    expect(response.status).toBe(204);
  });

  it('streams SSE frames', async () => {
    const response = await handle(rpcRequest('SendStreamingMessage', messageParams('stream 2')));
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = await readSse(response);
    expect(events.length).toBeGreaterThanOrEqual(4);
    expect(
      (JSON.parse(events.at(-1)?.data ?? '{}') as JsonRpcResponse).result?.statusUpdate,
    ).toMatchObject({
      status: { state: 'TASK_STATE_COMPLETED' },
    });
  });

  it('stops the stream when the consumer cancels, leaving the task to finish', async () => {
    const release = deferred();
    const settled = deferred<'completed' | 'aborted'>();
    const agent = defineAgent({
      card: testCard('Finisher'),
      async execute(ctx) {
        ctx.signal.addEventListener('abort', () => settled.resolve('aborted'));
        await ctx.working();
        const id = await ctx.artifact('chunk-0', { lastChunk: false });
        await release.promise;
        await ctx.append(id, 'chunk-1', { lastChunk: true });
        await ctx.complete();
        settled.resolve('completed');
      },
    });
    const own = createA2AHandler({
      agents: [{ path: '', handler: createRequestHandler({ agent }) }],
      heartbeatMs: 0,
    });
    const response = await own(rpcRequest('SendStreamingMessage', messageParams('go')));
    const reader = response.body?.getReader() as ReadableStreamDefaultReader<Uint8Array>;
    const first = await reader.read();
    const taskId = firstTaskId(new TextDecoder().decode(first.value));
    // Resolves once the handler's stream has been canceled; only then may the agent go on.
    await reader.cancel();
    release.resolve();
    expect(await settled.promise).toBe('completed');
    const got = await own(rpcRequest('GetTask', { id: taskId }));
    expect(((await got.json()) as JsonRpcResponse).result?.status).toMatchObject({
      state: 'TASK_STATE_COMPLETED',
    });
  });

  it('builds the card URL from the request URL', async () => {
    const response = await handle(new Request(`${BASE}/.well-known/agent-card.json`));
    const card = (await response.json()) as AgentCard;
    expect(card.supportedInterfaces[0]?.url).toBe(`${BASE}/a2a`);
    expect(response.headers.get('etag')).not.toBeNull();
  });

  it('refuses a body over the limit with 413', async () => {
    const small = createA2AHandler({
      agents: [{ path: '', handler: handlerFor() }],
      maxBodyBytes: 100,
    });
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: messageParams('x'.repeat(200)),
    });
    const response = await small(
      new Request(`${BASE}/a2a`, { method: 'POST', headers: A2A_HEADERS, body }),
    );
    expect(response.status).toBe(413);
    expect(((await response.json()) as JsonRpcResponse).error?.message).toBe(
      'Request body exceeds the 100 bytes limit',
    );
  });

  it('answers 404, 405, 415, preflight and healthz', async () => {
    expect((await handle(new Request(`${BASE}/missing`))).status).toBe(404);
    expect((await handle(new Request(`${BASE}/a2a`))).status).toBe(405);
    const wrongType = await handle(
      new Request(`${BASE}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'text/xml' },
        body: '<x/>',
      }),
    );
    expect(wrongType.status).toBe(415);
    // Browsers send Origin with every preflight; CORS headers answer it, and only it.
    const preflight = await handle(
      new Request(`${BASE}/a2a`, { method: 'OPTIONS', headers: { origin: 'https://app.example' } }),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
    const withoutOrigin = await handle(new Request(`${BASE}/a2a`, { method: 'OPTIONS' }));
    expect(withoutOrigin.headers.get('access-control-allow-origin')).toBeNull();
    expect(await (await handle(new Request(`${BASE}/healthz`))).json()).toEqual({ status: 'ok' });
  });
});
