import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { CallContext } from '../../src/server.js';
import { deferred } from '../support/sync.js';
import {
  A2A_HEADERS,
  call,
  extensionAgent,
  handlerFor,
  messageParams,
  postRaw,
  startServer,
  type JsonRpcResponse,
} from './support.js';

describe('JSON-RPC over HTTP', () => {
  it('answers a blocking SendMessage, then GetTask returns the same task', async () => {
    const { url } = await startServer();
    const sent = await call(`${url}/a2a`, 'SendMessage', messageParams('echo over http'));
    const task = sent.result?.task;
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    const got = await call(`${url}/a2a`, 'GetTask', { id: task?.id });
    expect(got.result?.id).toBe(task?.id);
  });

  it('answers errors with HTTP 200 and application/json', async () => {
    const { url } = await startServer();
    const response = await postRaw(`${url}/a2a`, '{not json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(((await response.json()) as JsonRpcResponse).error?.code).toBe(-32700);
  });

  it('serves the trailing-slash route', async () => {
    const { url } = await startServer();
    const body = await call(`${url}/a2a/`, 'GetTask', { id: 'x' });
    expect(body.error?.code).toBe(-32001);
  });

  it('answers a notification with 204 and no body, and still executes it', async () => {
    const { url } = await startServer();
    const notification = JSON.stringify({
      jsonrpc: '2.0',
      method: 'SendMessage',
      params: messageParams('echo noted'),
    });
    const response = await postRaw(`${url}/a2a`, notification);
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    const list = await call(`${url}/a2a`, 'ListTasks', {});
    expect(list.result?.tasks).toHaveLength(1);
  });

  it('refuses batches', async () => {
    const { url } = await startServer();
    const response = await postRaw(`${url}/a2a`, '[{"jsonrpc":"2.0","id":1,"method":"GetTask"}]');
    expect(await response.json()).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('reads A2A-Version from the header, then the query', async () => {
    const { url } = await startServer();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } });
    const json = { 'content-type': 'application/json' };
    const byQuery = await postRaw(`${url}/a2a?A2A-Version=1.0`, body, json);
    expect(((await byQuery.json()) as JsonRpcResponse).error?.code).toBe(-32001);
    const missing = await postRaw(`${url}/a2a`, body, json);
    expect(((await missing.json()) as JsonRpcResponse).error?.code).toBe(-32009);
  });

  it('echoes activated extensions in A2A-Extensions, and -32008 without the required one', async () => {
    const { url } = await startServer({
      agents: [{ path: '', handler: handlerFor(extensionAgent) }],
    });
    const refused = await call(`${url}/a2a`, 'SendMessage', messageParams('hi'));
    expect(refused.error?.code).toBe(-32008);
    const response = await postRaw(
      `${url}/a2a`,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: messageParams('hi') }),
      {
        ...A2A_HEADERS,
        'a2a-extensions':
          'https://example.com/ext/required/v1, https://example.com/ext/optional/v1',
      },
    );
    expect(response.headers.get('a2a-extensions')).toBe(
      'https://example.com/ext/required/v1, https://example.com/ext/optional/v1',
    );
    // The agent's reply, as a direct message.
    expect(((await response.json()) as JsonRpcResponse).result?.message).toMatchObject({
      role: 'ROLE_AGENT',
      parts: [{ text: 'ok' }],
    });
  });

  it.each(['application/json; charset=utf-8', 'application/a2a+json', 'APPLICATION/JSON'])(
    'accepts Content-Type %s',
    async (contentType) => {
      const { url } = await startServer();
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'GetTask',
        params: { id: 'x' },
      });
      const response = await postRaw(`${url}/a2a`, body, {
        'content-type': contentType,
        'a2a-version': '1.0',
      });
      expect(response.status).toBe(200);
    },
  );

  it('accepts a request without Content-Type', async () => {
    const { port } = await startServer();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } });
    // fetch always sets a content type for string bodies; node:http sends none.
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          port,
          host: '127.0.0.1',
          path: '/a2a',
          method: 'POST',
          headers: { 'a2a-version': '1.0' },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(answer.status).toBe(200);
    expect((JSON.parse(answer.text) as JsonRpcResponse).error?.code).toBe(-32001);
  });

  it('refuses other content types with 415 and ContentTypeNotSupportedError', async () => {
    const { url } = await startServer();
    const response = await postRaw(`${url}/a2a`, '{}', {
      'content-type': 'text/plain',
      'a2a-version': '1.0',
    });
    expect(response.status).toBe(415);
    const body = (await response.json()) as JsonRpcResponse;
    expect(body).toMatchObject({ id: null, error: { code: -32005 } });
    expect(body.error?.message).toMatch(/text\/plain/);
  });

  it('refuses a 5 MiB body with 413 and keeps serving', async () => {
    const { url } = await startServer();
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: messageParams('x'.repeat(5 * 1024 * 1024)),
    });
    const response = await postRaw(`${url}/a2a`, big);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({
      id: null,
      error: { code: -32600, message: 'Request body exceeds the 4 MiB limit' },
    });
    const next = await call(`${url}/a2a`, 'SendMessage', messageParams('echo still here'));
    expect(next.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('refuses a chunked body that crosses the limit while reading', async () => {
    const { url } = await startServer({ maxBodyBytes: 1024 });
    const chunks = [
      new TextEncoder().encode('{"jsonrpc":"2.0","params":"'),
      new Uint8Array(4096).fill(0x61),
    ];
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const chunk = chunks.shift();
        if (chunk === undefined) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const response = await fetch(`${url}/a2a`, {
      method: 'POST',
      headers: A2A_HEADERS,
      body,
      duplex: 'half',
    });
    expect(response.status).toBe(413);
    expect(((await response.json()) as JsonRpcResponse).error?.message).toBe(
      'Request body exceeds the 1 KiB limit',
    );
    const next = await call(`${url}/a2a`, 'GetTask', { id: 'x' });
    expect(next.error?.code).toBe(-32001);
  });

  it('aborts the call signal when the client disconnects', async () => {
    const real = handlerFor();
    const reached = deferred<CallContext>();
    const aborted = deferred();
    const handler = new Proxy(real, {
      get(target, property) {
        if (property === 'getTask') {
          return (context: CallContext) => {
            context.signal?.addEventListener('abort', () => aborted.resolve());
            reached.resolve(context);
            return new Promise(() => {});
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
      },
    });
    const { url } = await startServer({ agents: [{ path: '', handler }] });
    const controller = new AbortController();
    const pending = fetch(`${url}/a2a`, {
      method: 'POST',
      headers: A2A_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
      signal: controller.signal,
    }).catch((error: unknown) => error);
    const context = await reached.promise;
    expect(context.signal?.aborted).toBe(false);
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    await aborted.promise;
    expect(context.signal?.aborted).toBe(true);
  });

  it('answers 405 with Allow for GET on the JSON-RPC endpoint', async () => {
    const { url } = await startServer();
    const response = await fetch(`${url}/a2a`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST, OPTIONS');
    expect(((await response.json()) as JsonRpcResponse).error?.code).toBe(-32600);
  });
});
