/**
 * The request id and the log lines of a call, on every binding: the response returns
 * `X-Request-Id` (gRPC: `x-request-id` metadata, in the trailers of an error), the caller's own
 * when it is a valid one and a new UUID otherwise; the request log line carries it; and every
 * line written inside a traced call — by an interceptor, by the agent — carries the trace id and
 * span id of the call's SERVER span.
 */

import { credentials, Client, Metadata, type ServiceError } from '@grpc/grpc-js';
import { SpanKind } from '@opentelemetry/api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createA2AServer,
  createLogger,
  createRequestHandler,
  createTaskRuntime,
  defineAgent,
  type A2AServer,
  type ServerInterceptor,
  type TaskRuntime,
} from '../../src/server.js';
import { MemoryTaskStore } from '../../src/stores.js';
import { compatV03 } from '../../src/server-compat.js';
import {
  registerInMemoryTelemetry,
  type InMemoryTelemetry,
} from './support/in-memory-telemetry.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let telemetry: InMemoryTelemetry;
let runtime: TaskRuntime;
let server: A2AServer;
let url: string;
let grpcAddress: string;
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  telemetry = registerInMemoryTelemetry();
  const logger = createLogger({
    destination: { write: (text) => lines.push(JSON.parse(text) as Record<string, unknown>) },
  });
  const agent = defineAgent({
    card: {
      name: 'Logging agent',
      description: 'Logs while it works',
      skills: [{ id: 'log', name: 'Log', description: 'Logs', tags: ['log'] }],
    },
    execute: (ctx) => {
      logger.info({ text: ctx.text }, 'the agent works');
      return ctx.reply('done');
    },
  });
  const intercepting: ServerInterceptor = (next) => (operation, call, request) => {
    logger.info({ operation }, 'an interceptor sees the call');
    return next(operation, call, request);
  };
  runtime = createTaskRuntime({ store: new MemoryTaskStore() });
  await runtime.start();
  server = createA2AServer({
    agents: [{ path: '', handler: createRequestHandler({ agent, runtime }) }],
    compat: compatV03(),
    logger,
    interceptors: [intercepting],
    http: { port: 0, host: '127.0.0.1', heartbeatMs: 0 },
    grpc: { port: 0, host: '127.0.0.1' },
  });
  const address = await server.listen();
  url = address.http?.url ?? '';
  grpcAddress = address.grpc?.address ?? '';
});

afterAll(async () => {
  await server.shutdown({ deadlineMs: 500 });
  await runtime.close();
  await telemetry.shutdown();
});

beforeEach(() => {
  lines.length = 0;
  telemetry.reset();
});

function sendMessageBody(text: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } },
  });
}

/** The HTTP calls, one per binding (1.0 and 0.3), each with its own body. */
const HTTP_CALLS = [
  ['JSON-RPC', '/a2a', { 'a2a-version': '1.0' }, () => sendMessageBody('jsonrpc')],
  [
    'HTTP+JSON',
    '/message:send',
    { 'a2a-version': '1.0' },
    () =>
      JSON.stringify({
        message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'rest' }] },
      }),
  ],
  [
    'JSON-RPC 0.3',
    '/a2a',
    {},
    () =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/send',
        params: {
          message: {
            kind: 'message',
            messageId: crypto.randomUUID(),
            role: 'user',
            parts: [{ kind: 'text', text: 'v03' }],
          },
        },
      }),
  ],
] as const;

function post(path: string, headers: Record<string, string>, body: string): Promise<Response> {
  return fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
}

function requestLine(): Record<string, unknown> | undefined {
  return lines.find((line) => line.msg === 'request');
}

describe.each(HTTP_CALLS)('X-Request-Id over %s', (_name, path, headers, body) => {
  it('is generated when the caller sends none, and is on the request log line', async () => {
    const response = await post(path, headers, body());
    expect(response.status).toBe(200);
    await response.text();
    const id = response.headers.get('x-request-id');
    expect(id).toMatch(UUID);
    expect(requestLine()?.requestId).toBe(id);
  });

  it('is the caller’s own when valid', async () => {
    const response = await post(path, { ...headers, 'x-request-id': 'edge-42:abc/9+=' }, body());
    await response.text();
    expect(response.headers.get('x-request-id')).toBe('edge-42:abc/9+=');
    expect(requestLine()?.requestId).toBe('edge-42:abc/9+=');
  });

  it.each([
    ['too long', 'x'.repeat(129)],
    ['with a space', 'a b'],
    ['with a quote', 'a"b'],
  ])('a caller’s id %s is replaced by a new one', async (_why, sent) => {
    const response = await post(path, { ...headers, 'x-request-id': sent }, body());
    await response.text();
    expect(response.headers.get('x-request-id')).toMatch(UUID);
    expect(requestLine()?.requestId).toBe(response.headers.get('x-request-id'));
  });
});

describe('the log lines of a traced call', () => {
  it('carry the SERVER span’s trace and span id, inside the call; the request line its id', async () => {
    const response = await post('/a2a', { 'a2a-version': '1.0' }, sendMessageBody('traced'));
    await response.text();
    const span = telemetry
      .spans()
      .find((s) => s.kind === SpanKind.SERVER && s.name === 'SendMessage');
    const ids = { trace_id: span?.spanContext().traceId, span_id: span?.spanContext().spanId };
    expect(ids.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(lines.find((line) => line.msg === 'an interceptor sees the call')).toMatchObject(ids);
    expect(lines.find((line) => line.msg === 'the agent works')).toMatchObject(ids);
    expect(requestLine()?.requestId).toBe(response.headers.get('x-request-id'));
  });
});

describe('x-request-id over gRPC', () => {
  let client: Client;

  beforeAll(() => {
    client = new Client(grpcAddress, credentials.createInsecure());
  });
  afterAll(() => client.close());

  /** A raw call: the response metadata, or the error with its trailers. */
  function call(
    method: string,
    metadata: Metadata,
  ): Promise<{ headers: Metadata | undefined; error: ServiceError | undefined }> {
    metadata.set('a2a-version', '1.0');
    return new Promise((resolve) => {
      let headers: Metadata | undefined;
      const pending = client.makeUnaryRequest(
        `/lf.a2a.v1.A2AService/${method}`,
        (value: Buffer) => value,
        (value: Buffer) => value,
        Buffer.alloc(0),
        metadata,
        (error) => resolve({ headers, error: error ?? undefined }),
      );
      pending.on('metadata', (received: Metadata) => {
        headers = received;
      });
    });
  }

  it('returns a new id in the response metadata, and the caller’s valid one', async () => {
    const fresh = await call('ListTasks', new Metadata());
    expect(fresh.error).toBeUndefined();
    const [id] = fresh.headers?.get('x-request-id') ?? [];
    expect(id).toMatch(UUID);
    expect(requestLine()?.requestId).toBe(id);

    const metadata = new Metadata();
    metadata.set('x-request-id', 'grpc-caller-7');
    const own = await call('ListTasks', metadata);
    expect(own.headers?.get('x-request-id')).toEqual(['grpc-caller-7']);
  });

  it('returns it in the trailers of an error', async () => {
    const metadata = new Metadata();
    metadata.set('x-request-id', 'grpc-failing-1');
    // An empty GetTaskRequest: no id, refused as invalid.
    const { error } = await call('GetTask', metadata);
    expect(error?.code).toBe(3); // INVALID_ARGUMENT
    expect(error?.metadata.get('x-request-id')).toEqual(['grpc-failing-1']);
    expect(requestLine()?.requestId).toBe('grpc-failing-1');
  });
});
