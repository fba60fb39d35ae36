import { describe, expect, it } from 'vitest';
import {
  createRequestHandler,
  defineAgent,
  streamEvent,
  type EventStream,
  type StreamEvent,
} from '../../src/server.js';
import { testCard } from '../support/agents.js';
import { range } from '../support/events.js';
import { readSse } from '../support/read-sse.js';
import { deferred } from '../support/sync.js';
import {
  A2A_HEADERS,
  call,
  firstTaskId,
  handlerFor,
  readFirstChunk,
  messageParams,
  postRaw,
  startServer,
  type JsonRpcResponse,
} from './support.js';

function streamRequest(text: string, id: string | number = 's1'): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'SendStreamingMessage',
    params: messageParams(text),
  });
}

describe('SSE streams over HTTP', () => {
  it('sends text/event-stream with one id + JSON-RPC response per event, then ends', async () => {
    const { url } = await startServer();
    const response = await postRaw(`${url}/a2a`, streamRequest('stream 3', 'req-7'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    expect(response.headers.get('connection')).toBe('keep-alive');
    expect(response.headers.get('content-encoding')).toBeNull();
    const events = await readSse(response);
    const bodies = events.map((event) => JSON.parse(event.data) as JsonRpcResponse);
    for (const body of bodies) {
      expect(body.jsonrpc).toBe('2.0');
      expect(body.id).toBe('req-7');
      expect(body.result).toBeDefined();
    }
    // Every event of the task's log, numbered 1, 2, 3… with no gap and no duplicate.
    expect(events.map((event) => event.id)).toEqual(
      range(1, events.length).map((seq) => String(seq)),
    );
    expect(events).toHaveLength(6);
    expect(bodies[0]?.result?.task).toBeDefined();
    expect(bodies.filter((body) => body.result?.artifactUpdate !== undefined)).toHaveLength(3);
    const last = bodies.at(-1)?.result?.statusUpdate as { status: { state: string } };
    expect(last.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('sends heartbeat comments while the stream is idle', async () => {
    const { url } = await startServer({ heartbeatMs: 20 });
    const response = await postRaw(`${url}/a2a`, streamRequest('slow 2 150'));
    const text = await response.text();
    expect(text).toContain(':\n\n');
    expect(text.split('\n\n').filter((block) => block === ':').length).toBeGreaterThanOrEqual(3);
    expect(text.trimEnd().endsWith('}')).toBe(true);
  });

  it('answers an error found before the stream with a JSON body', async () => {
    const { url } = await startServer();
    const response = await postRaw(
      `${url}/a2a`,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'SubscribeToTask',
        params: { id: 'missing' },
      }),
    );
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toMatchObject({ id: 3, error: { code: -32001 } });
  });

  it('lets the task finish when the client disconnects mid-stream', async () => {
    const left = deferred();
    const settled = deferred<'completed' | 'aborted'>();
    const agent = defineAgent({
      card: testCard('Finisher'),
      async execute(ctx) {
        ctx.signal.addEventListener('abort', () => settled.resolve('aborted'));
        await ctx.working();
        const id = await ctx.artifact('chunk-0', { lastChunk: false });
        await left.promise;
        await ctx.append(id, 'chunk-1', { lastChunk: true });
        await ctx.complete();
        settled.resolve('completed');
      },
    });
    const { url, server } = await startServer({
      agents: [{ path: '', handler: createRequestHandler({ agent }) }],
    });
    // The server sees the client leave when the response it was writing closes.
    server.server.on('request', (_req, res) => res.once('close', () => left.resolve()));
    const controller = new AbortController();
    const response = await fetch(`${url}/a2a`, {
      method: 'POST',
      headers: A2A_HEADERS,
      body: streamRequest('go'),
      signal: controller.signal,
    });
    const taskId = firstTaskId(await readFirstChunk(response));
    expect(taskId).toBeDefined();
    controller.abort();
    // Followed through the agent, not with SubscribeToTask: a new subscriber would keep the task
    // followed, and hide a task that stops when its last stream leaves.
    expect(await settled.promise).toBe('completed');
    const got = await call(`${url}/a2a`, 'GetTask', { id: taskId });
    expect(got.result?.status).toMatchObject({ state: 'TASK_STATE_COMPLETED' });
  });

  it('releases the runtime stream when the client disconnects', async () => {
    let released = false;
    const release = deferred();
    const real = handlerFor();
    const events: EventStream = {
      [Symbol.asyncIterator]: () => {
        let sent = false;
        return {
          next: () => {
            if (sent) return new Promise<IteratorResult<StreamEvent>>(() => {});
            sent = true;
            const task = {
              id: 't',
              contextId: 'c',
              status: { state: 'TASK_STATE_WORKING' as const },
            };
            return Promise.resolve({ done: false, value: streamEvent(1, { task }) });
          },
          return: () => {
            released = true;
            release.resolve();
            return Promise.resolve({ done: true, value: undefined });
          },
        };
      },
    };
    const handler = new Proxy(real, {
      get(target, property) {
        if (property === 'subscribeToTask') return () => Promise.resolve(events);
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
      },
    });
    const { url } = await startServer({ agents: [{ path: '', handler }] });
    const controller = new AbortController();
    const response = await fetch(`${url}/a2a`, {
      method: 'POST',
      headers: A2A_HEADERS,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SubscribeToTask',
        params: { id: 't' },
      }),
      signal: controller.signal,
    });
    expect(await readFirstChunk(response)).toContain('"id":"t"');
    expect(released).toBe(false);
    controller.abort();
    await release.promise;
    expect(released).toBe(true);
  });

  it('resumes after Last-Event-ID with SubscribeToTask', async () => {
    const { url } = await startServer();
    const controller = new AbortController();
    const response = await fetch(`${url}/a2a`, {
      method: 'POST',
      headers: A2A_HEADERS,
      body: streamRequest('slow 4 60'),
      signal: controller.signal,
    });
    const first = await readFirstChunk(response);
    const seq = /^id: (\d+)/.exec(first)?.[1];
    const taskId = firstTaskId(first);
    expect(seq).toBe('1');
    controller.abort();
    const resumed = await fetch(`${url}/a2a`, {
      method: 'POST',
      headers: { ...A2A_HEADERS, 'last-event-id': seq ?? '' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'SubscribeToTask',
        params: { id: taskId },
      }),
    });
    expect(resumed.headers.get('content-type')).toBe('text/event-stream');
    const events = await readSse(resumed);
    // Everything after event 1 exactly once: WORKING, the four chunks, the completion.
    expect(events.map((event) => event.id)).toEqual(['2', '3', '4', '5', '6', '7']);
    const bodies = events.map((event) => JSON.parse(event.data) as JsonRpcResponse);
    expect(bodies.map((body) => body.id)).toEqual(bodies.map(() => 2));
    expect(bodies.filter((body) => body.result?.artifactUpdate !== undefined)).toHaveLength(4);
    const last = bodies.at(-1);
    expect(last?.result?.statusUpdate).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' } });
  });
});
