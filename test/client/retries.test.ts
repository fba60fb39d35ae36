/**
 * Retries against a proxy that fails chosen requests: only idempotent calls (and card fetches)
 * are retried, on network errors, 502/503/504 and `Retry-After`, within the attempts allowed.
 */

import { describe, expect, it } from 'vitest';
import {
  ConnectionError,
  createCardResolver,
  createClient,
  HttpStatusError,
  TaskNotFoundError,
  type A2AClient,
} from '../../src/client.js';
import { startFaultProxy, startTandem, type Fault, PASS, type SeenRequest } from './support.js';

const fast = { baseDelayMs: 1, maxDelayMs: 50 };

/** A client behind a proxy that applies `fault` to the first `times` calls of `method`. */
async function faultyClient(
  method: string,
  fault: Fault,
  times: number,
  retry: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number } | false = fast,
): Promise<{ client: A2AClient; calls: () => SeenRequest[] }> {
  const { url } = await startTandem();
  let seen = 0;
  const proxy = await startFaultProxy(url, (request) => {
    if (request.rpcMethod !== method) return PASS;
    return seen++ < times ? fault : PASS;
  });
  const client = await createClient(proxy.url, { retry, cardResolver: createCardResolver() });
  return { client, calls: () => proxy.requests.filter((r) => r.rpcMethod === method) };
}

const status = (code: number, headers?: Record<string, string>): Fault => ({
  kind: 'status',
  status: code,
  ...(headers === undefined ? {} : { headers }),
});

describe('retries', () => {
  it('retries GetTask on 503, 502 and 504 until it succeeds', async () => {
    for (const code of [502, 503, 504]) {
      const { client, calls } = await faultyClient('GetTask', status(code), 2);
      await expect(client.getTask({ id: 'missing' })).rejects.toBeInstanceOf(TaskNotFoundError);
      expect(calls()).toHaveLength(3);
    }
  });

  it('retries after a connection reset', async () => {
    const { client, calls } = await faultyClient('ListTasks', { kind: 'reset' }, 1);
    const page = await client.listTasks();
    expect(page.tasks).toEqual([]);
    expect(calls()).toHaveLength(2);
  });

  it('gives up after maxAttempts and surfaces the last failure', async () => {
    const { client, calls } = await faultyClient('CancelTask', status(503), 10, {
      ...fast,
      maxAttempts: 4,
    });
    const error = await client.cancelTask({ id: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect((error as HttpStatusError).status).toBe(503);
    expect((error as HttpStatusError).message).toMatch(/^HTTP 503 /);
    expect(calls()).toHaveLength(4);
  });

  it('never retries SendMessage', async () => {
    const { client, calls } = await faultyClient('SendMessage', status(503), 5);
    await expect(client.send('echo x')).resolves.toBeDefined(); // streams: not SendMessage
    const error = await client
      .sendMessage({ message: { parts: [{ text: 'echo x' }] } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(calls()).toHaveLength(1);
    const reset = await faultyClient('SendMessage', { kind: 'reset' }, 5);
    await expect(
      reset.client.sendMessage({ message: { parts: [{ text: 'echo x' }] } }),
    ).rejects.toBeInstanceOf(ConnectionError);
    expect(reset.calls()).toHaveLength(1);
  });

  it('does not retry when retries are disabled', async () => {
    const { client, calls } = await faultyClient('GetTask', status(503), 5, false);
    await expect(client.getTask({ id: 'x' })).rejects.toBeInstanceOf(HttpStatusError);
    expect(calls()).toHaveLength(1);
  });

  it('honours Retry-After (seconds) on 503 and 429, capped at maxDelayMs', async () => {
    const { client, calls } = await faultyClient(
      'GetTask',
      status(503, { 'retry-after': '1' }),
      1,
      {
        baseDelayMs: 1,
        maxDelayMs: 5_000,
      },
    );
    const started = Date.now();
    await expect(client.getTask({ id: 'x' })).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(calls()).toHaveLength(2);

    const capped = await faultyClient('GetTask', status(429, { 'retry-after': '120' }), 1, {
      baseDelayMs: 1,
      maxDelayMs: 100,
    });
    const start = Date.now();
    await expect(capped.client.getTask({ id: 'x' })).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(Date.now() - start).toBeLessThan(2_000);
    expect(capped.calls()).toHaveLength(2);
  });

  it('honours Retry-After as an HTTP date', async () => {
    const date = new Date(Date.now() + 1_500).toUTCString();
    const { client, calls } = await faultyClient(
      'GetTask',
      status(503, { 'retry-after': date }),
      1,
      {
        baseDelayMs: 1,
        maxDelayMs: 5_000,
      },
    );
    const started = Date.now();
    await expect(client.getTask({ id: 'x' })).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(calls()).toHaveLength(2);
  });

  it('does not retry 429 without Retry-After, nor other client errors', async () => {
    for (const code of [429, 401, 404]) {
      const { client, calls } = await faultyClient('GetTask', status(code), 5);
      const error = await client.getTask({ id: 'x' }).catch((e: unknown) => e);
      expect((error as HttpStatusError).status).toBe(code);
      expect(calls()).toHaveLength(1);
    }
  });

  it('retries card fetches', async () => {
    const { url } = await startTandem();
    let cardFetches = 0;
    const proxy = await startFaultProxy(url, (request) =>
      request.url.includes('agent-card') && cardFetches++ === 0 ? status(503) : PASS,
    );
    const client = await createClient(proxy.url, {
      retry: fast,
      cardResolver: createCardResolver(),
    });
    expect(client.card.name).toBe('Client test agent');
    expect(cardFetches).toBe(2);
  });

  it('stops waiting for a retry when the call is aborted', async () => {
    const { client } = await faultyClient('GetTask', status(503, { 'retry-after': '30' }), 5, {
      baseDelayMs: 1,
      maxDelayMs: 60_000,
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 100);
    const started = Date.now();
    await expect(client.getTask({ id: 'x' }, { signal: controller.signal })).rejects.toThrow(
      'stop',
    );
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
