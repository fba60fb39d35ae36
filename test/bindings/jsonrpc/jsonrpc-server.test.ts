import { describe, expect, it } from 'vitest';
import type { JsonRpcEventStream } from '../../../src/bindings/jsonrpc/jsonrpc-event-stream.js';
import { TaskNotFoundError } from '../../../src/index.js';
import {
  createJsonRpcHandler,
  type JsonRpcHandler,
  type JsonRpcHandlerOptions,
  type JsonRpcReply,
  type JsonRpcRequestInput,
} from '../../../src/bindings/jsonrpc/jsonrpc-server.js';
import { createAgentEndpoint } from '../../../src/bindings/server/agent-endpoint.js';
import {
  ANONYMOUS,
  createRequestHandler,
  silentLogger,
  streamEvent,
  type A2ARequestHandler,
  type AgentDefinition,
  type CallContext,
  type EventStream,
} from '../../../src/server.js';
import { extensionAgent, testAgent } from '../../support/agents.js';
import { send as messageParams } from '../../support/messages.js';
import { recordingLogger } from '../../support/recording-logger.js';

function handlerFor(agent: AgentDefinition = testAgent): A2ARequestHandler {
  return createRequestHandler({ agent });
}

interface Parsed {
  id: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown>[] };
}

function input(
  body: string,
  headers: Record<string, string> = { 'a2a-version': '1.0' },
  query = '',
): JsonRpcRequestInput {
  return {
    body,
    binding: 'JSONRPC',
    principal: ANONYMOUS,
    serviceParameters: new Headers(headers),
    query,
    signal: new AbortController().signal,
    agentInterfaces: () => [],
  };
}

/** The JSON-RPC server half over `handler`, with no interceptors and no limits. */
function rpcOver(handler: A2ARequestHandler, options?: JsonRpcHandlerOptions): JsonRpcHandler {
  const endpoint = createAgentEndpoint('', handler, {
    interceptors: [],
    limits: undefined,
    logger: silentLogger,
  });
  return createJsonRpcHandler(endpoint, options);
}

function request(method: string, params?: unknown, id: unknown = 1): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method,
    ...(params === undefined ? {} : { params }),
  });
}

function bodyOf(reply: JsonRpcReply): Parsed {
  if (reply.kind !== 'body') throw new Error(`expected a body reply, got ${reply.kind}`);
  return JSON.parse(reply.body) as Parsed;
}

/** A handler whose chosen methods misbehave, delegating the rest to the real runtime. */
function withOverrides(overrides: Partial<A2ARequestHandler>): A2ARequestHandler {
  const real = handlerFor();
  return new Proxy(real, {
    get(target, property, receiver) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof A2ARequestHandler];
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function'
        ? (value as (...args: unknown[]) => unknown).bind(target)
        : value;
    },
  });
}

describe('JSON-RPC framing', () => {
  const rpc = rpcOver(handlerFor());

  it('answers -32700 with id null for unparsable JSON', async () => {
    const body = bodyOf(await rpc(input('{"jsonrpc":"2.0",')));
    expect(body.id).toBeNull();
    expect(body.error?.code).toBe(-32700);
  });

  it.each([
    ['a string', '"hello"', null],
    ['a number', '42', null],
    ['null', 'null', null],
    ['a wrong jsonrpc version', '{"jsonrpc":"1.0","id":5,"method":"GetTask"}', 5],
    ['a missing jsonrpc', '{"id":"a","method":"GetTask"}', 'a'],
    ['a missing method', '{"jsonrpc":"2.0","id":1}', 1],
    ['a non-string method', '{"jsonrpc":"2.0","id":1,"method":7}', 1],
    ['an object id', '{"jsonrpc":"2.0","id":{},"method":"GetTask"}', null],
    ['a boolean id', '{"jsonrpc":"2.0","id":true,"method":"GetTask"}', null],
    ['array params', '{"jsonrpc":"2.0","id":2,"method":"GetTask","params":["t"]}', 2],
    ['null params', '{"jsonrpc":"2.0","id":2,"method":"GetTask","params":null}', 2],
    ['string params', '{"jsonrpc":"2.0","id":2,"method":"GetTask","params":"t"}', 2],
  ])('answers -32600 for %s', async (_case, text, id) => {
    const body = bodyOf(await rpc(input(text)));
    expect(body.error?.code).toBe(-32600);
    expect(body.id).toBe(id);
  });

  it('refuses batches with one -32600 and id null', async () => {
    const body = bodyOf(await rpc(input(`[${request('GetTask', { id: 'x' })}]`)));
    expect(body).toMatchObject({ id: null, error: { code: -32600 } });
    expect(body.error?.message).toMatch(/Batch requests are not supported/);
  });

  it('answers -32601 for an unknown or wrongly cased method, with a hint', async () => {
    const unknown = bodyOf(await rpc(input(request('tasks/get', { id: 'x' }))));
    expect(unknown.error?.code).toBe(-32601);
    const cased = bodyOf(await rpc(input(request('sendMessage', messageParams('echo hi')))));
    expect(cased.error?.code).toBe(-32601);
    expect(cased.error?.message).toMatch(/did you mean "SendMessage"/);
  });

  it.each([
    ['a string', '"req-1"', 'req-1'],
    ['a number', '7', 7],
    ['null', 'null', null],
  ])('echoes %s id', async (_case, token, id) => {
    const text = `{"jsonrpc":"2.0","id":${token},"method":"GetTask","params":{"id":"nope"}}`;
    const reply = await rpc(input(text));
    expect(reply.kind).toBe('body');
    if (reply.kind === 'body') expect(reply.body).toContain(`"id":${token},`);
    expect(bodyOf(reply).id).toBe(id);
  });

  it('echoes a number id with its exact token', async () => {
    const text =
      '{"jsonrpc":"2.0","id":12345678901234567890,"method":"GetTask","params":{"id":"x"}}';
    const reply = await rpc(input(text));
    if (reply.kind !== 'body') throw new Error('expected a body');
    expect(reply.body.startsWith('{"jsonrpc":"2.0","id":12345678901234567890,')).toBe(true);
  });

  it('accepts a Uint8Array body', async () => {
    const bytes = new TextEncoder().encode(request('GetTask', { id: 'missing' }));
    const body = bodyOf(await rpc({ ...input(''), body: bytes }));
    expect(body.error?.code).toBe(-32001);
  });
});

describe('JSON-RPC params', () => {
  const rpc = rpcOver(handlerFor());

  it('answers -32602 with every violation, with paths relative to params', async () => {
    const params = { message: { role: 'ROLE_USER', parts: [{}], messageId: 5 } };
    const body = bodyOf(await rpc(input(request('SendMessage', params))));
    expect(body.error?.code).toBe(-32602);
    const detail = body.error?.data?.[0] as {
      '@type': string;
      fieldViolations: { field: string }[];
    };
    expect(detail['@type']).toBe('type.googleapis.com/google.rpc.BadRequest');
    const fields = detail.fieldViolations.map((v) => v.field);
    expect(fields).toContain('message.messageId');
    expect(fields.some((field) => field.startsWith('message.parts[0]'))).toBe(true);
  });

  it('treats missing params as {} (GetExtendedAgentCard needs none)', async () => {
    const body = bodyOf(await rpc(input(request('GetExtendedAgentCard'))));
    // The test agent has no extended card: the runtime's answer, not a params error.
    expect(body.error?.code).toBe(-32004);
    const missing = bodyOf(await rpc(input(request('GetTask'))));
    expect(missing.error?.code).toBe(-32602);
  });

  it('passes A2A errors through with their ErrorInfo', async () => {
    const body = bodyOf(await rpc(input(request('GetTask', { id: 'no-such-task' }))));
    expect(body.error?.code).toBe(-32001);
    expect(body.error?.data?.[0]).toMatchObject({ reason: 'TASK_NOT_FOUND' });
  });

  it('answers a blocking SendMessage with the completed task', async () => {
    const body = bodyOf(
      await rpc(input(request('SendMessage', messageParams('echo hello world')))),
    );
    const task = body.result?.task as {
      status: { state: string };
      artifacts: { parts: { text: string }[] }[];
    };
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts[0]?.parts[0]?.text).toBe('hello world');
  });

  it('answers DeleteTaskPushNotificationConfig errors per capability', async () => {
    const body = bodyOf(
      await rpc(input(request('DeleteTaskPushNotificationConfig', { taskId: 't', id: 'c' }))),
    );
    expect(body.error?.code).toBe(-32003);
  });
});

describe('call context', () => {
  it('scopes tasks to the tenant of the request', async () => {
    const rpc = rpcOver(handlerFor());
    const sent = bodyOf(
      await rpc(input(request('SendMessage', { ...messageParams('echo t'), tenant: 'acme' }))),
    );
    const taskId = (sent.result?.task as { id: string }).id;
    const same = bodyOf(await rpc(input(request('GetTask', { id: taskId, tenant: 'acme' }))));
    expect(same.result?.id).toBe(taskId);
    const other = bodyOf(await rpc(input(request('GetTask', { id: taskId }))));
    expect(other.error?.code).toBe(-32001);
  });

  it('passes principal, version, extensions, Last-Event-ID and the signal', async () => {
    let seen: CallContext | undefined;
    const rpc = rpcOver(
      withOverrides({
        subscribeToTask: (call) => {
          seen = call;
          return Promise.reject(new TaskNotFoundError());
        },
      }),
    );
    const controller = new AbortController();
    await rpc({
      ...input(request('SubscribeToTask', { id: 'x' }), {
        'a2a-version': '1.0.1',
        'a2a-extensions': 'urn:a, urn:b',
        'last-event-id': '12',
      }),
      signal: controller.signal,
    });
    expect(seen).toMatchObject({
      principal: { id: 'anonymous', anonymous: true },
      tenant: '',
      protocolVersion: '1.0',
      requestedExtensions: ['urn:a', 'urn:b'],
      afterSeq: 12,
    });
    expect(seen?.signal).toBe(controller.signal);
  });

  it('refuses a Last-Event-ID that is not an event id, before reaching the handler', async () => {
    let reached = false;
    const rpc = rpcOver(
      withOverrides({
        subscribeToTask: () => {
          reached = true;
          return Promise.reject(new TaskNotFoundError());
        },
      }),
    );
    const reply = await rpc(
      input(request('SubscribeToTask', { id: 'x' }), {
        'a2a-version': '1.0',
        'last-event-id': 'x1',
      }),
    );
    expect(reply.kind === 'body' ? reply.errorCode : undefined).toBe(-32602);
    expect(reached).toBe(false);
  });
});

describe('A2A-Version', () => {
  const rpc = rpcOver(handlerFor());
  const getTask = request('GetTask', { id: 'x' }, 'v');

  it.each([
    ['the header', { 'a2a-version': '1.0' }, undefined],
    ['a padded header', { 'a2a-version': ' 1.0 ' }, undefined],
    ['a patch version', { 'a2a-version': '1.0.3' }, undefined],
    ['the query parameter', {}, 'A2A-Version=1.0'],
    ['the header over the query parameter', { 'a2a-version': '1.0' }, 'A2A-Version=0.3'],
  ])('serves 1.0 from %s', async (_case, headers: Record<string, string>, query) => {
    const body = bodyOf(await rpc(input(getTask, headers, query)));
    expect(body.error?.code).toBe(-32001);
  });

  it.each([
    ['no version', {}, undefined, '0.3'],
    ['an empty header', { 'a2a-version': '' }, undefined, '0.3'],
    ['0.3', { 'a2a-version': '0.3' }, undefined, '0.3'],
    ['2.0', { 'a2a-version': '2.0' }, undefined, '2.0'],
    ['garbage', { 'a2a-version': 'latest' }, undefined, 'latest'],
    ['an empty header over a good query', { 'a2a-version': '' }, 'A2A-Version=1.0', '0.3'],
  ])(
    'refuses %s with -32009 listing the supported versions',
    async (_case, headers: Record<string, string>, query, requested) => {
      const body = bodyOf(await rpc(input(getTask, headers, query)));
      expect(body.id).toBe('v');
      expect(body.error?.code).toBe(-32009);
      expect(body.error?.data?.[0]).toMatchObject({
        reason: 'VERSION_NOT_SUPPORTED',
        metadata: { supportedVersions: '1.0', requestedVersion: requested },
      });
    },
  );

  it('checks the version before the params', async () => {
    const body = bodyOf(await rpc(input(request('GetTask', {}), { 'a2a-version': '0.3' })));
    expect(body.error?.code).toBe(-32009);
  });
});

describe('A2A-Extensions', () => {
  const rpc = rpcOver(handlerFor(extensionAgent));
  const send = (): string => request('SendMessage', messageParams('hi'));

  it('answers -32008 when a required extension is not requested', async () => {
    const body = bodyOf(await rpc(input(send())));
    expect(body.error?.code).toBe(-32008);
  });

  it('returns the activated extensions, trimmed and deduplicated', async () => {
    const reply = await rpc(
      input(send(), {
        'a2a-version': '1.0',
        'a2a-extensions':
          ' https://example.com/ext/required/v1 ,, https://example.com/ext/unknown,https://example.com/ext/required/v1',
      }),
    );
    expect(reply.activatedExtensions).toEqual(['https://example.com/ext/required/v1']);
    expect(bodyOf(reply).result?.message).toBeDefined();
  });
});

describe('notifications', () => {
  it('executes a notification and answers nothing', async () => {
    const handler = handlerFor();
    const rpc = rpcOver(handler);
    const params = messageParams('echo quietly');
    const text = JSON.stringify({ jsonrpc: '2.0', method: 'SendMessage', params });
    const reply = await rpc(input(text));
    expect(reply.kind).toBe('empty');
    const list = bodyOf(await rpc(input(request('ListTasks', {}))));
    expect((list.result?.tasks as unknown[]).length).toBe(1);
  });

  it('answers nothing for a notification that fails', async () => {
    const rpc = rpcOver(handlerFor());
    const reply = await rpc(input('{"jsonrpc":"2.0","method":"GetTask","params":{"id":"x"}}'));
    expect(reply).toMatchObject({ kind: 'empty', errorCode: -32001 });
  });
});

describe('unexpected errors', () => {
  it('answers -32603 with a generic message and logs the real error', async () => {
    const logger = recordingLogger();
    const rpc = rpcOver(
      withOverrides({ getTask: () => Promise.reject(new Error('db password is hunter2')) }),
      { logger },
    );
    const reply = await rpc(input(request('GetTask', { id: 'x' })));
    if (reply.kind !== 'body') throw new Error('expected a body');
    expect(JSON.parse(reply.body)).toMatchObject({
      error: { code: -32603, message: 'Internal error' },
    });
    expect(reply.body).not.toContain('hunter2');
    expect(logger.at('error')).toHaveLength(1);
  });
});

/** Pushes a stream into an array until it ends. */
function framesOf(stream: JsonRpcEventStream): Promise<string[]> {
  return new Promise((resolve) => {
    const frames: string[] = [];
    stream.start({
      write: (frame) => frames.push(frame) > 0,
      end: () => resolve(frames),
    });
  });
}

describe('streams', () => {
  it('frames each event as id + data with the request id', async () => {
    const rpc = rpcOver(handlerFor());
    const reply = await rpc(
      input(request('SendStreamingMessage', messageParams('stream 2'), 'abc')),
    );
    if (reply.kind !== 'stream') throw new Error('expected a stream');
    const frames = await framesOf(reply.stream);
    expect(frames.length).toBeGreaterThanOrEqual(4);
    for (const frame of frames) {
      expect(frame).toMatch(/^id: \d+\ndata: \{"jsonrpc":"2\.0","id":"abc","result":\{.*\}\}\n\n$/);
    }
  });

  it('omits id: for an event without a sequence number', async () => {
    const events: EventStream = {
      async *[Symbol.asyncIterator]() {
        yield await Promise.resolve(
          streamEvent(undefined, {
            message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] },
          }),
        );
      },
    };
    const rpc = rpcOver(withOverrides({ sendStreamingMessage: () => Promise.resolve(events) }));
    const reply = await rpc(input(request('SendStreamingMessage', messageParams('x'))));
    if (reply.kind !== 'stream') throw new Error('expected a stream');
    const [first] = await framesOf(reply.stream);
    expect(first).toMatch(/^data: /);
  });

  it('ends with one JSON-RPC error frame when the stream fails midway', async () => {
    const logger = recordingLogger();
    const events: EventStream = {
      async *[Symbol.asyncIterator]() {
        yield await Promise.resolve(
          streamEvent(1, {
            task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } },
          }),
        );
        throw new Error('store went away');
      },
    };
    const rpc = rpcOver(withOverrides({ subscribeToTask: () => Promise.resolve(events) }), {
      logger,
    });
    const reply = await rpc(input(request('SubscribeToTask', { id: 't' }, 9)));
    if (reply.kind !== 'stream') throw new Error('expected a stream');
    const frames = await framesOf(reply.stream);
    expect(frames).toHaveLength(2);
    expect(frames[1]).toBe(
      'data: {"jsonrpc":"2.0","id":9,"error":{"code":-32603,"message":"Internal error"}}\n\n',
    );
    expect(reply.stream.errorCode).toBe(-32603);
    expect(logger.at('error')).toHaveLength(1);
  });

  it('sends an A2A error raised midway with its code', async () => {
    const events: EventStream = {
      // eslint-disable-next-line require-yield
      async *[Symbol.asyncIterator]() {
        await Promise.resolve();
        throw new TaskNotFoundError();
      },
    };
    const rpc = rpcOver(withOverrides({ subscribeToTask: () => Promise.resolve(events) }));
    const reply = await rpc(input(request('SubscribeToTask', { id: 't' })));
    if (reply.kind !== 'stream') throw new Error('expected a stream');
    const frames = await framesOf(reply.stream);
    expect(frames).toHaveLength(1);
    expect(frames[0]).toContain('"code":-32001');
  });

  it('answers errors found before the stream starts as a JSON body', async () => {
    const rpc = rpcOver(handlerFor());
    const body = bodyOf(await rpc(input(request('SubscribeToTask', { id: 'missing' }))));
    expect(body.error?.code).toBe(-32001);
  });

  it('stop() ends the sink and releases the runtime stream while it waits', async () => {
    let returned = false;
    const events: EventStream = {
      [Symbol.asyncIterator]: () => ({
        next: () => new Promise<IteratorResult<ReturnType<typeof streamEvent>>>(() => {}),
        return: () => {
          returned = true;
          return Promise.resolve({ done: true, value: undefined });
        },
      }),
    };
    const rpc = rpcOver(withOverrides({ subscribeToTask: () => Promise.resolve(events) }));
    const reply = await rpc(input(request('SubscribeToTask', { id: 't' })));
    if (reply.kind !== 'stream') throw new Error('expected a stream');
    const frames = framesOf(reply.stream);
    reply.stream.stop();
    expect(await frames).toEqual([]);
    expect(returned).toBe(true);
    expect(reply.stream.finished).toBe(true);
  });

  it('writes nothing more while the sink is full, and goes on after resume()', async () => {
    const rpc = rpcOver(handlerFor());
    const reply = await rpc(input(request('SendStreamingMessage', messageParams('stream 3'))));
    if (reply.kind !== 'stream') throw new Error('expected a stream');
    const stream = reply.stream;
    const frames: string[] = [];
    let wrote!: () => void;
    let ended = false;
    const sink = {
      write(frame: string): boolean {
        frames.push(frame);
        wrote();
        return false;
      },
      end(): void {
        ended = true;
        wrote();
      },
    };
    const nextWrite = (): Promise<void> =>
      new Promise((resolve) => {
        wrote = resolve;
      });
    let written = nextWrite();
    stream.start(sink);
    await written;
    // Every event of the task is stored and published meanwhile; none is written while paused.
    await new Promise((resolve) => setImmediate(resolve));
    expect(frames).toHaveLength(1);
    while (!ended) {
      const count = frames.length;
      written = nextWrite();
      stream.resume();
      await written;
      expect(frames.length).toBeLessThanOrEqual(count + 1);
    }
    expect(frames.at(-1)).toContain('TASK_STATE_COMPLETED');
  });
});
