/**
 * Interceptors at the level of operations: they see each call (operation, message, URL, service
 * parameters and credentials, signal) whatever the transport, may change what is sent, answer by
 * themselves or wrap a stream's events; resumed streams and card fetches go through them too.
 * Below them, the `fetch` option sees the raw HTTP exchange.
 */

import { describe, expect, it } from 'vitest';
import {
  createCardResolver,
  createClient,
  HttpStatusError,
  UsageError,
  type AgentCard,
  type ClientCall,
  type ClientTransportFactory,
  type Interceptor,
  type StreamItem,
  type Task,
} from '../../src/client.js';
import {
  cardWith,
  collect,
  describeEvent,
  PASS,
  startFaultProxy,
  startRawServer,
  startTandem,
  type Fault,
} from './support.js';

const message = (text: string) => ({ message: { parts: [{ text }] } });

/** The items as a stream that yields each one asynchronously, as a connection would. */
async function* streamOf<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) {
    await Promise.resolve();
    yield item;
  }
}

const apiKeyInQuery: Partial<AgentCard> = {
  securitySchemes: { key: { apiKeySecurityScheme: { location: 'query', name: 'api_key' } } },
  securityRequirements: [{ schemes: { key: { list: [] } } }],
};

/** What an interceptor saw of a call, flattened for assertions. */
function sightOf(call: ClientCall) {
  return {
    operation: call.operation,
    stream: call.stream,
    message: call.message,
    url: call.url,
    authorization: call.headers.get('authorization'),
    version: call.headers.get('a2a-version'),
    extensions: call.headers.get('a2a-extensions'),
    lastEventId: call.stream ? call.lastEventId : undefined,
    signal: call.signal instanceof AbortSignal,
  };
}

describe('interceptors', () => {
  it('see each call as it is sent, and what they change reaches the wire', async () => {
    const { url } = await startTandem();
    const proxy = await startFaultProxy(url, () => PASS);
    const rpcUrl = `${proxy.url}/a2a`;
    const card = cardWith(
      [{ url: rpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: 'acme' }],
      apiKeyInQuery,
    );
    const seen: ReturnType<typeof sightOf>[] = [];
    const client = await createClient(proxy.url, {
      card,
      auth: { bearerToken: 't0ken', apiKey: { value: 'k3y' } },
      extensions: ['https://example.com/ext/v1'],
      interceptors: [
        (next) => (call) => {
          seen.push(sightOf(call));
          call.headers.set('x-trace', `trace-${call.operation}`);
          return next(call);
        },
      ],
    });
    await client.listTasks({ pageSize: 5 });
    expect(seen).toEqual([
      {
        operation: 'ListTasks',
        stream: false,
        message: { pageSize: 5, tenant: 'acme' },
        url: `${rpcUrl}?api_key=k3y`,
        authorization: 'Bearer t0ken',
        version: '1.0',
        extensions: 'https://example.com/ext/v1',
        lastEventId: undefined,
        signal: true,
      },
    ]);
    expect(proxy.requests[0]?.url).toBe('/a2a?api_key=k3y');
    expect(proxy.requests[0]?.headers['x-trace']).toBe('trace-ListTasks');
  });

  it('may change the message, or answer without the transport', async () => {
    const { url } = await startTandem();
    const proxy = await startFaultProxy(url, () => PASS);
    const known: Task = { id: 'cached', status: { state: 'TASK_STATE_COMPLETED' } };
    const client = await createClient(proxy.url, {
      cardResolver: createCardResolver(),
      interceptors: [
        (next) => (call) => {
          if (call.operation === 'GetTask' && call.message.id === 'cached') {
            return Promise.resolve({ stream: false, message: known, headers: new Headers() });
          }
          if (call.operation === 'SendMessage') {
            const parts = [{ text: 'echo rewritten' }];
            return next({
              ...call,
              message: { ...call.message, message: { ...call.message.message, parts } },
            });
          }
          return next(call);
        },
      ],
    });
    expect(await client.getTask({ id: 'cached' })).toBe(known);
    const sent = await client.sendMessage(message('echo original'));
    expect(sent.task?.artifacts?.[0]?.parts[0]?.text).toBe('rewritten');
    expect(proxy.requests.map((r) => r.rpcMethod ?? r.method)).toEqual(['GET', 'SendMessage']);
  });

  it('wrap the events of a stream, resumed connections included', async () => {
    const { url } = await startTandem();
    const proxy = await startFaultProxy(url, (request): Fault =>
      request.rpcMethod === 'SendStreamingMessage' ? { kind: 'cut', afterEvents: 2 } : PASS,
    );
    const log: string[] = [];
    const tap: Interceptor = (next) => async (call) => {
      const result = await next(call);
      if (!result.stream) return result;
      const label = `${call.operation}${call.stream && call.lastEventId ? `@${call.lastEventId}` : ''}`;
      async function* tapped(items: AsyncIterable<StreamItem>) {
        for await (const item of items) {
          log.push(`${label} ${item.id ?? '-'} ${describeEvent(item.payload)}`);
          yield item;
        }
      }
      return { ...result, message: tapped(result.message) };
    };
    const client = await createClient(proxy.url, {
      cardResolver: createCardResolver(),
      retry: { baseDelayMs: 1, maxDelayMs: 20 },
      interceptors: [tap],
    });
    const events = await collect(client.sendStreamingMessage(message('stream 2')));
    expect(events.map(describeEvent)).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
      'artifact:chunk-0',
      'artifact:chunk-1+append',
      'status:TASK_STATE_COMPLETED',
    ]);
    // The resumed stream may repeat the last event it was cut after; the client drops it.
    expect(log.slice(0, 2)).toEqual([
      'SendStreamingMessage 1 task:TASK_STATE_SUBMITTED',
      'SendStreamingMessage 2 status:TASK_STATE_WORKING',
    ]);
    expect(log.slice(2).map((line) => line.split(' ')[0])).toEqual(
      log.slice(2).map(() => 'SubscribeToTask@2'),
    );
    expect(log.at(-1)).toBe('SubscribeToTask@2 5 status:TASK_STATE_COMPLETED');
  });

  it('apply alike over a transport that is not HTTP, credentials included', async () => {
    const binding = 'https://example.com/bindings/in-memory/v1';
    const received: Array<ReturnType<typeof sightOf> & { added: string | null }> = [];
    const record = (call: ClientCall) =>
      received.push({ ...sightOf(call), added: call.headers.get('x-added') });
    const task: Task = { id: 't1', status: { state: 'TASK_STATE_COMPLETED' } };
    const inMemory: ClientTransportFactory = () => ({
      protocolBinding: binding,
      unary(call) {
        record(call as ClientCall);
        return Promise.resolve({ stream: false, message: task as never, headers: new Headers() });
      },
      stream(call) {
        record(call as ClientCall);
        const items = streamOf([{ id: '1', payload: { task } }]);
        return Promise.resolve({ stream: true, message: items, headers: new Headers() });
      },
    });
    const client = await createClient('http://agent.example.com', {
      card: cardWith(
        [{ url: '/mem', protocolBinding: binding, protocolVersion: '1.0' }],
        apiKeyInQuery,
      ),
      bindings: [binding],
      transports: { [binding]: inMemory },
      auth: { bearerToken: 'b', apiKey: { value: 'k' } },
      interceptors: [
        (next) => (call) => {
          call.headers.set('x-added', call.operation);
          return next(call);
        },
      ],
    });
    await client.getTask({ id: 't1' });
    await collect(client.subscribeToTask({ id: 't1' }, { lastEventId: '7' }));
    const common = {
      url: 'http://agent.example.com/mem?api_key=k',
      authorization: 'Bearer b',
      version: '1.0',
      extensions: null,
      signal: true,
    };
    expect(received).toEqual([
      {
        ...common,
        operation: 'GetTask',
        stream: false,
        message: { id: 't1' },
        added: 'GetTask',
        lastEventId: undefined,
      },
      {
        ...common,
        operation: 'SubscribeToTask',
        stream: true,
        message: { id: 't1' },
        added: 'SubscribeToTask',
        lastEventId: '7',
      },
    ]);
  });

  it('refuse a call passed to a handler that cannot run it', async () => {
    const { url } = await startTandem();
    const client = await createClient(url, {
      cardResolver: createCardResolver(),
      interceptors: [
        (next) => (call) =>
          call.operation === 'GetTask'
            ? next({ ...call, stream: false, operation: 'GetAgentCard', message: {} })
            : next(call),
      ],
    });
    const error = await client.getTask({ id: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain('passed a GetAgentCard call to the transport');
  });
});

describe('the fetch option', () => {
  it('sees the raw HTTP exchange of every call, below the interceptors', async () => {
    const { url } = await startTandem();
    const log: string[] = [];
    const client = await createClient(url, {
      cardResolver: createCardResolver(),
      interceptors: [
        (next) => async (call) => {
          log.push(`interceptor ${call.operation}`);
          return next(call);
        },
      ],
      fetch: async (request) => {
        const response = await fetch(request);
        log.push(`fetch ${request.method} ${new URL(request.url).pathname} ${response.status}`);
        return response;
      },
    });
    await client.listTasks();
    expect(log).toEqual([
      'interceptor GetAgentCard',
      'fetch GET /.well-known/agent-card.json 200',
      'interceptor ListTasks',
      'fetch POST /a2a 200',
    ]);
  });
});

describe('secrets', () => {
  it('keeps an API key placed in the query out of error messages', async () => {
    const card = cardWith(
      [{ url: '/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      apiKeyInQuery,
    );
    const server = await startRawServer((request, res) => {
      if (request.method === 'GET') return void res.writeHead(200).end(JSON.stringify(card));
      res.writeHead(502, { 'content-type': 'text/plain' }).end('bad gateway');
    });
    const client = await createClient(server.url, {
      cardResolver: createCardResolver(),
      auth: { apiKey: { value: 'very-secret-key' } },
      retry: false,
    });
    const error = await client.getTask({ id: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(server.requests[1]?.url).toBe('/rpc?api_key=very-secret-key');
    expect((error as Error).message).toContain(`POST ${server.url}/rpc:`);
    expect((error as Error).message).not.toContain('very-secret-key');
  });
});
