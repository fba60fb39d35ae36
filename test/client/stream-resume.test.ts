/**
 * Streams that drop: a proxy cuts a `SendStreamingMessage` after k events, for every k before
 * the end; the client resumes with `SubscribeToTask` and `Last-Event-ID`, and the caller sees
 * exactly the uninterrupted sequence, once. Without resuming, the drop surfaces.
 */

import { describe, expect, it } from 'vitest';
import {
  ConnectionError,
  createCardResolver,
  createClient,
  type StreamResponse,
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

const streamOf = (text: string) => ({ message: { parts: [{ text }] } });

/** A proxy that cuts the first `SendStreamingMessage` after `k` events, and passes the rest. */
async function cuttingProxy(k: number, alsoCutSubscribe = false) {
  const { url } = await startTandem();
  return startFaultProxy(url, (request): Fault => {
    if (request.rpcMethod === 'SendStreamingMessage') return { kind: 'cut', afterEvents: k };
    if (alsoCutSubscribe && request.rpcMethod === 'SubscribeToTask') {
      return { kind: 'cut', afterEvents: 0 };
    }
    return PASS;
  });
}

const resolver = () => createCardResolver();

/** A card whose JSON-RPC interface is `/rpc` on the same server (a relative URL). */
const rpcCard = cardWith([{ url: '/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);

describe('stream resume', () => {
  for (const command of ['stream 4', 'slow 4 15']) {
    it(`resumes "${command}" after every k events and delivers each event once`, async () => {
      const reference = await (async () => {
        const { url } = await startTandem();
        const client = await createClient(url, { cardResolver: resolver() });
        return (await collect(client.sendStreamingMessage(streamOf(command)))).map(describeEvent);
      })();
      expect(reference).toHaveLength(7);
      for (let k = 1; k < reference.length; k++) {
        const proxy = await cuttingProxy(k);
        const client = await createClient(proxy.url, {
          cardResolver: resolver(),
          retry: { baseDelayMs: 1, maxDelayMs: 20 },
        });
        const events = await collect(client.sendStreamingMessage(streamOf(command)));
        expect(events.map(describeEvent), `cut after ${k} events`).toEqual(reference);
        const subscribes = proxy.requests.filter((r) => r.rpcMethod === 'SubscribeToTask');
        expect(subscribes.length, `cut after ${k} events`).toBe(1);
        // Tandem numbers the events of a task from 1: the k-th event has id k.
        expect(subscribes[0]?.headers['last-event-id']).toBe(String(k));
      }
    });
  }

  it('surfaces the drop when resuming is disabled', async () => {
    const proxy = await cuttingProxy(2);
    const client = await createClient(proxy.url, {
      cardResolver: resolver(),
      resumeStreams: false,
    });
    const seen: StreamResponse[] = [];
    const error = await (async () => {
      for await (const event of client.sendStreamingMessage(streamOf('slow 4 15')))
        seen.push(event);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(seen).toHaveLength(2);
    expect(proxy.requests.some((r) => r.rpcMethod === 'SubscribeToTask')).toBe(false);
  });

  it('gives up after the configured attempts', async () => {
    const proxy = await cuttingProxy(2, true);
    const client = await createClient(proxy.url, {
      cardResolver: resolver(),
      resumeStreams: { maxAttempts: 3 },
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
    });
    await expect(
      collect(client.sendStreamingMessage(streamOf('slow 4 15'))),
    ).rejects.toBeInstanceOf(ConnectionError);
    expect(proxy.requests.filter((r) => r.rpcMethod === 'SubscribeToTask')).toHaveLength(3);
  });

  it('resumes a SubscribeToTask stream too', async () => {
    const { url } = await startTandem();
    let subscribes = 0;
    const proxy = await startFaultProxy(url, (request): Fault =>
      request.rpcMethod === 'SubscribeToTask' && subscribes++ === 0
        ? { kind: 'cut', afterEvents: 2 }
        : PASS,
    );
    const client = await createClient(proxy.url, { cardResolver: resolver() });
    const started = await client.sendMessage({
      ...streamOf('slow 3 20'),
      configuration: { returnImmediately: true },
    });
    const events = await collect(client.subscribeToTask({ id: started.task?.id ?? '' }));
    expect(events.map(describeEvent).at(-1)).toBe('status:TASK_STATE_COMPLETED');
    // The stream starts with the task as it stands, whose artifact holds the chunks the agent
    // had already sent (how many depends on timing); every later chunk arrives once, in order.
    const textOf = (parts: readonly { text?: string }[] = []) => parts.map((p) => p.text).join('');
    const before = textOf(events[0]?.task?.artifacts?.[0]?.parts);
    const after = events.map((e) => textOf(e.artifactUpdate?.artifact.parts)).join('');
    expect(before + after).toBe('chunk-0chunk-1chunk-2');
    expect(subscribes).toBe(2);
  });

  it('cannot resume a stream without event ids, and says so', async () => {
    const task = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } };
    const server = await startRawServer((request, res) => {
      if (request.method === 'GET') return void res.writeHead(200).end(JSON.stringify(rpcCard));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { task } })}\n\n`);
    });
    const client = await createClient(server.url, { cardResolver: resolver() });
    const error = await collect(client.sendStreamingMessage(streamOf('x'))).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(/ended before the task reached a terminal/);
  });

  it('closes the connection when the consumer leaves the loop', async () => {
    let resolveClosed: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
    const server = await startRawServer((request, res) => {
      if (request.method === 'GET') return void res.writeHead(200).end(JSON.stringify(rpcCard));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let seq = 0;
      const timer = setInterval(() => {
        const status = { state: 'TASK_STATE_WORKING' };
        const result =
          seq === 0
            ? { task: { id: 't', status } }
            : { statusUpdate: { taskId: 't', contextId: 'c', status } };
        res.write(`id: ${seq++}\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result })}\n\n`);
      }, 10);
      res.on('close', () => {
        clearInterval(timer);
        resolveClosed();
      });
    });
    const client = await createClient(server.url, { cardResolver: resolver() });
    let count = 0;
    for await (const event of client.sendStreamingMessage(streamOf('x'))) {
      expect(event).toBeDefined();
      if (++count === 3) break;
    }
    await closed;
    expect(count).toBe(3);
  });
});
