/**
 * What every call carries and how it is bounded: the interface's tenant, credentials where the
 * card's security scheme says, caller headers, interceptors in order, the extensions and version
 * headers, time limits and abort signals.
 */

import { describe, expect, it } from 'vitest';
import {
  CallTimeoutError,
  ConfigurationError,
  createCardResolver,
  createClient,
  TaskNotFoundError,
  type AgentCard,
  type Interceptor,
} from '../../src/client.js';
import {
  cardWith,
  collect,
  PASS,
  startFaultProxy,
  startRawServer,
  startTandem,
} from './support.js';

const message = (text: string) => ({ message: { parts: [{ text }] } });

/** Tandem behind a recording proxy, with a card of our own naming the proxy's JSON-RPC URL. */
async function recorded(extra: Partial<AgentCard> = {}, tenant?: string) {
  const { url } = await startTandem();
  const proxy = await startFaultProxy(url, () => PASS);
  const agentInterface = {
    url: `${proxy.url}/a2a`,
    protocolBinding: 'JSONRPC',
    protocolVersion: '1.0',
    ...(tenant === undefined ? {} : { tenant }),
  };
  return { proxy, card: cardWith([agentInterface], extra) };
}

const paramsOf = (body: string) => (JSON.parse(body) as { params: Record<string, unknown> }).params;

describe('tenant', () => {
  it('sets the interface tenant on every request unless the caller sets one', async () => {
    const { proxy, card } = await recorded({}, 'acme');
    const client = await createClient(proxy.url, { card });
    const task = (await client.sendMessage(message('echo hi'))).task;
    await client.getTask({ id: task?.id ?? '' });
    await client.listTasks();
    await expect(client.getTask({ id: task?.id ?? '', tenant: 'other' })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
    expect(proxy.requests.map((r) => paramsOf(r.body).tenant)).toEqual([
      'acme',
      'acme',
      'acme',
      'other',
    ]);
    const untenanted = await createClient(proxy.url, {
      card: cardWith([{ ...card.supportedInterfaces[0]!, tenant: '' }]),
    });
    await expect(untenanted.getTask({ id: task?.id ?? '' })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
    expect('tenant' in paramsOf(proxy.requests.at(-1)?.body ?? '{}')).toBe(false);
  });
});

describe('credentials and headers', () => {
  it('sends a bearer token, caller headers and A2A-Version on every call', async () => {
    const { proxy, card } = await recorded();
    const client = await createClient(proxy.url, {
      card,
      auth: { bearerToken: 's3cret' },
      headers: { 'x-trace': 'abc' },
    });
    await client.listTasks({}, { headers: { 'x-call': '1' } });
    const headers = proxy.requests[0]?.headers;
    expect(headers?.authorization).toBe('Bearer s3cret');
    expect(headers?.['x-trace']).toBe('abc');
    expect(headers?.['x-call']).toBe('1');
    expect(headers?.['a2a-version']).toBe('1.0');
  });

  it('sends an API key where the card scheme says: header, query or cookie', async () => {
    const scheme = (location: string, name: string) => ({
      securitySchemes: { key: { apiKeySecurityScheme: { location, name } } },
      securityRequirements: [{ schemes: { key: { list: [] } } }],
    });
    const header = await recorded(scheme('header', 'X-API-Key'));
    await (
      await createClient(header.proxy.url, { card: header.card, auth: { apiKey: { value: 'k1' } } })
    ).listTasks();
    expect(header.proxy.requests[0]?.headers['x-api-key']).toBe('k1');

    const query = await recorded(scheme('query', 'api_key'));
    await (
      await createClient(query.proxy.url, { card: query.card, auth: { apiKey: { value: 'k 2' } } })
    ).listTasks();
    expect(
      new URL(query.proxy.requests[0]?.url ?? '', 'http://x').searchParams.get('api_key'),
    ).toBe('k 2');

    const cookie = await recorded(scheme('cookie', 'session'));
    await (
      await createClient(cookie.proxy.url, { card: cookie.card, auth: { apiKey: { value: 'k3' } } })
    ).listTasks();
    expect(cookie.proxy.requests[0]?.headers.cookie).toBe('session=k3');

    const explicit = await recorded();
    await (
      await createClient(explicit.proxy.url, {
        card: explicit.card,
        auth: { apiKey: { value: 'k4', name: 'X-Key', location: 'header' } },
      })
    ).listTasks();
    expect(explicit.proxy.requests[0]?.headers['x-key']).toBe('k4');
  });

  it('refuses an API key with nowhere to go', async () => {
    const { proxy, card } = await recorded();
    await expect(
      createClient(proxy.url, { card, auth: { apiKey: { value: 'k' } } }),
    ).rejects.toBeInstanceOf(ConfigurationError);
  });

  it('runs interceptors in order around every call, card fetches included', async () => {
    const { url } = await startTandem();
    const log: string[] = [];
    const tag =
      (name: string): Interceptor =>
      (next) =>
      async (call) => {
        log.push(`${name}>${call.operation}`);
        call.headers.append('x-chain', name);
        try {
          const result = await next(call);
          log.push(`${name}<${result.stream ? 'stream' : 'result'}`);
          return result;
        } catch (error) {
          log.push(`${name}<${(error as Error).constructor.name}`);
          throw error;
        }
      };
    const proxy = await startFaultProxy(url, () => PASS);
    const client = await createClient(proxy.url, {
      cardResolver: createCardResolver(),
      interceptors: [tag('a'), tag('b')],
    });
    await client.getTask({ id: 'x' }).catch(() => undefined);
    expect(log).toEqual([
      'a>GetAgentCard',
      'b>GetAgentCard',
      'b<result',
      'a<result',
      'a>GetTask',
      'b>GetTask',
      'b<TaskNotFoundError',
      'a<TaskNotFoundError',
    ]);
    expect(proxy.requests.map((r) => r.headers['x-chain'])).toEqual(['a, b', 'a, b']);
  });

  it('requests extensions with A2A-Extensions', async () => {
    const { proxy, card } = await recorded();
    const client = await createClient(proxy.url, {
      card,
      extensions: ['https://example.com/ext/a/v1', 'https://example.com/ext/b/v1'],
    });
    await client.listTasks();
    expect(proxy.requests[0]?.headers['a2a-extensions']).toBe(
      'https://example.com/ext/a/v1, https://example.com/ext/b/v1',
    );
  });
});

describe('time limits and abort', () => {
  /** A JSON-RPC endpoint that accepts calls and never answers (or streams nothing). */
  async function silentAgent() {
    const card = cardWith([{ url: '/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
    return startRawServer((request, res) => {
      if (request.method === 'GET') return void res.writeHead(200).end(JSON.stringify(card));
      if (request.rpcMethod === 'SendStreamingMessage') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.flushHeaders();
      }
    });
  }

  /**
   * A client of the silent agent with a time limit of `timeoutMs` on its calls, its card read
   * first without one: the card fetch is no part of what the limit is tested on (under load it
   * alone can take longer than 100 ms).
   */
  async function limitedClient(url: string, timeoutMs: number) {
    const { card } = await createClient(url, { cardResolver: createCardResolver() });
    return createClient(url, { card, timeoutMs });
  }

  it('fails a call that takes longer than its time limit', async () => {
    const server = await silentAgent();
    const client = await limitedClient(server.url, 100);
    const started = Date.now();
    const error = await client.getTask({ id: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CallTimeoutError);
    expect((error as CallTimeoutError).timeoutMs).toBe(100);
    // The agent never answers: without the limit the call would wait for ever.
    expect(Date.now() - started).toBeLessThan(5_000);
    await expect(client.listTasks({}, { timeoutMs: 50 })).rejects.toMatchObject({ timeoutMs: 50 });
  });

  it('limits the wait for the first event of a stream', async () => {
    const server = await silentAgent();
    const client = await limitedClient(server.url, 100);
    await expect(collect(client.sendStreamingMessage(message('x')))).rejects.toBeInstanceOf(
      CallTimeoutError,
    );
  });

  it('stops a call and a stream when the caller aborts', async () => {
    const server = await silentAgent();
    const client = await createClient(server.url, { cardResolver: createCardResolver() });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user canceled')), 50);
    await expect(client.getTask({ id: 'x' }, { signal: controller.signal })).rejects.toThrow(
      'user canceled',
    );
    const again = new AbortController();
    setTimeout(() => again.abort(new Error('user left')), 50);
    await expect(
      collect(client.sendStreamingMessage(message('x'), { signal: again.signal })),
    ).rejects.toThrow('user left');
  });
});
