/**
 * Fixtures of the HTTP+JSON binding tests: one server per test file (the real node adapter on a
 * loopback port, the real runtime), an agent whose tasks the test steers through gates, and
 * helpers that call the REST interface with `fetch` and read its `google.rpc.Status` errors and
 * event streams exactly as they come off the wire.
 */

import { afterAll, beforeAll, expect } from 'vitest';
import { createNodeServer, type A2ANodeServerOptions } from '../../../src/http/adapters/node.js';
import { SseDecoder, type SseEvent } from '../../../src/protocol/sse-decoder.js';
import { defineAgent, type AgentDefinition } from '../../../src/runtime/agent.js';
import { createRequestHandler } from '../../../src/compose/create-request-handler.js';
import type { Logger } from '../../../src/runtime/logger.js';
import type { TaskStore } from '../../../src/stores/task-store.js';

export type { SseEvent };

/** Where the agent of a test file is mounted: its REST interface is this path itself. */
export const AGENT_PATH = '/agents/test';

/** The service parameters every well-formed request carries. */
export const VERSION = { 'a2a-version': '1.0' } as const;

/** The body headers of a well-formed POST. */
export const JSON_BODY = { ...VERSION, 'content-type': 'application/a2a+json' } as const;

/** Extension URIs the agent declares (none required). */
export const OPTIONAL_EXTENSION = 'https://example.com/ext/optional/v1';

/** A promise settled by the test (a gate the agent awaits) or by the agent (a milestone). */
export interface Signal {
  readonly promise: Promise<string>;
  resolve(value?: string): void;
}

const signals = new Map<string, Signal>();

/** The signal `name`, created on first use by the test or the agent. */
export function signal(name: string): Signal {
  let found = signals.get(name);
  if (found === undefined) {
    let resolve!: (value: string) => void;
    const promise = new Promise<string>((done) => (resolve = done));
    found = { promise, resolve: (value = '') => resolve(value) };
    signals.set(name, found);
  }
  return found;
}

let names = 0;

/** A signal name no other test uses. */
export function freshName(): string {
  names++;
  return `s${names}-${Date.now()}`;
}

/**
 * Commands (the message text):
 * - `echo <s>`: one artifact `<s>`, completed;
 * - `stream <n>`: WORKING, then n chunks of one artifact, each in its own event-loop turn, completed;
 * - `gate <name> [n]`: WORKING (then resolves the signal `<name>:working` with the task id),
 *   waits for the signal `<name>`, then n chunks (default 1), completed;
 * - `wait [name]`: WORKING (then resolves the signal `<name>` with the task id) until canceled;
 * - `ask`: INPUT_REQUIRED;
 * - `reply <s>`: a direct message, no task.
 */
export const restTestAgent: AgentDefinition = defineAgent({
  card: {
    name: 'REST test agent',
    description: 'Echoes, streams, waits and asks on command',
    skills: [{ id: 'test', name: 'Test', description: 'Test commands', tags: ['test'] }],
    capabilities: { streaming: true, extensions: [{ uri: OPTIONAL_EXTENSION, required: false }] },
  },
  extendedCard: {
    name: 'REST test agent (extended)',
    description: 'The extended card',
    skills: [{ id: 'secret', name: 'Secret', description: 'Only for callers', tags: ['x'] }],
  },
  async execute(ctx) {
    const [command = '', ...args] = ctx.text.split(' ');
    switch (command) {
      case 'echo':
        await ctx.artifact(ctx.text.slice(5));
        return ctx.complete();
      case 'stream':
      case 'gate': {
        await ctx.working();
        if (command === 'gate') {
          signal(`${args[0] ?? ''}:working`).resolve(ctx.taskId);
          await signal(args[0] ?? '').promise;
        }
        const n = Number(command === 'gate' ? (args[1] ?? 1) : (args[0] ?? 1));
        let artifactId: string | undefined;
        for (let i = 0; i < n; i++) {
          await new Promise(setImmediate);
          const chunk = `chunk-${i}`;
          if (artifactId === undefined) {
            artifactId = await ctx.artifact(chunk, { lastChunk: n === 1 });
          } else await ctx.append(artifactId, chunk, { lastChunk: i === n - 1 });
        }
        return ctx.complete();
      }
      case 'wait':
        await ctx.working();
        if (args[0] !== undefined) signal(args[0]).resolve(ctx.taskId);
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        return;
      case 'ask':
        return ctx.inputRequired('What is your name?');
      case 'reply':
        return ctx.reply(ctx.text.slice(6));
      default:
        return ctx.reply(`unknown command ${command}`);
    }
  },
});

/** A log line the server wrote. */
export interface LogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly context: Record<string, unknown>;
  readonly message: string | undefined;
}

/** A logger that records every line and lets a test await one. */
export class RecordingLogger implements Logger {
  readonly lines: LogLine[] = [];
  readonly #waiters: { match: (line: LogLine) => boolean; resolve: (line: LogLine) => void }[] = [];

  debug(context: object, message?: string): void {
    this.#add({ level: 'debug', context: context as Record<string, unknown>, message });
  }
  info(context: object, message?: string): void {
    this.#add({ level: 'info', context: context as Record<string, unknown>, message });
  }
  warn(context: object, message?: string): void {
    this.#add({ level: 'warn', context: context as Record<string, unknown>, message });
  }
  error(context: object, message?: string): void {
    this.#add({ level: 'error', context: context as Record<string, unknown>, message });
  }
  child(): Logger {
    return this;
  }

  /** Resolves with the first line (already written or to come) that `match` accepts. */
  next(match: (line: LogLine) => boolean): Promise<LogLine> {
    const found = this.lines.find(match);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve) => this.#waiters.push({ match, resolve }));
  }

  #add(line: LogLine): void {
    this.lines.push(line);
    for (const waiter of [...this.#waiters]) {
      if (!waiter.match(line)) continue;
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.resolve(line);
    }
  }
}

/** The server of one test file. */
export interface RestServer {
  /** The server's root URL (`http://127.0.0.1:<port>`). */
  readonly url: string;
  /** The agent's REST interface URL (`<url>/agents/test`). */
  readonly base: string;
  /** The agent's JSON-RPC endpoint. */
  readonly rpc: string;
  readonly logger: RecordingLogger;
}

/** What a test file's server serves. */
export interface RestServerOptions extends Partial<Omit<A2ANodeServerOptions, 'agents'>> {
  readonly agent?: AgentDefinition;
  /** Opens the store the agent's tasks live in (default: memory), disposed after the file. */
  readonly store?: () => Promise<{ readonly store: TaskStore; dispose(): Promise<void> }>;
}

/**
 * Starts one server for the whole file (in `beforeAll`) and shuts it down after the file; the
 * returned object is usable inside tests and hooks that run after `beforeAll`.
 */
export function useRestServer(options: RestServerOptions = {}): RestServer {
  let started: RestServer | undefined;
  let shutdown: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const logger = new RecordingLogger();
    const { agent = restTestAgent, store, ...http } = options;
    const opened = await store?.();
    const handler = createRequestHandler({
      agent,
      logger,
      ...(opened === undefined ? {} : { store: opened.store }),
    });
    const server = createNodeServer({
      agents: [{ path: AGENT_PATH, handler }],
      heartbeatMs: 0,
      logger,
      ...http,
    });
    const { url } = await server.listen({ port: 0, host: '127.0.0.1' });
    shutdown = async () => {
      await server.shutdown({ deadlineMs: 1_000 });
      await opened?.dispose();
    };
    started = { url, base: url + AGENT_PATH, rpc: `${url}${AGENT_PATH}/a2a`, logger };
  });
  afterAll(async () => {
    await shutdown?.();
  });
  const get = (): RestServer => {
    if (started === undefined) throw new Error('the server starts in beforeAll');
    return started;
  };
  return {
    get url() {
      return get().url;
    },
    get base() {
      return get().base;
    },
    get rpc() {
      return get().rpc;
    },
    get logger() {
      return get().logger;
    },
  };
}

let counter = 0;

/** A fresh message id. */
export function messageId(): string {
  counter++;
  return `m-${counter}-${Date.now()}`;
}

/** A `SendMessageRequest` body for `text`, with `extra` fields merged into the message. */
export function sendBody(
  text: string,
  extra: { message?: Record<string, unknown>; [field: string]: unknown } = {},
): Record<string, unknown> {
  const { message, ...rest } = extra;
  return {
    message: { messageId: messageId(), role: 'ROLE_USER', parts: [{ text }], ...message },
    ...rest,
  };
}

/** POSTs a JSON body with the well-formed headers (overridable). */
export function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { ...JSON_BODY, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** GETs with the well-formed headers (overridable). */
export function get(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { headers: { ...VERSION, ...headers } });
}

/** A task as the tests read it. */
export interface WireTask {
  id: string;
  contextId: string;
  status: { state: string; message?: Record<string, unknown> };
  history?: Record<string, unknown>[];
  artifacts?: { artifactId: string; parts: { text?: string }[] }[];
}

/** Sends `text` with `message:send` under `prefix` (a tenant path, or `''`) and returns the task. */
export async function createTask(
  base: string,
  text: string,
  options: { prefix?: string; configuration?: Record<string, unknown> } = {},
): Promise<WireTask> {
  const response = await post(
    `${base}${options.prefix ?? ''}/message:send`,
    sendBody(text, options.configuration ? { configuration: options.configuration } : {}),
  );
  const body = (await response.json()) as { task?: WireTask };
  expect(response.status, JSON.stringify(body)).toBe(200);
  expect(body.task).toBeDefined();
  return body.task as WireTask;
}

/** Starts a task that stays WORKING until canceled (`returnImmediately`). */
export function createWaitingTask(base: string, prefix = ''): Promise<WireTask> {
  return createTask(base, 'wait', { prefix, configuration: { returnImmediately: true } });
}

/** A `google.rpc.Status` error body. */
export interface StatusBody {
  error: {
    code: number;
    status: string;
    message: string;
    details: ({ '@type': string } & Record<string, unknown>)[];
  };
}

/**
 * Reads an error response and checks the `google.rpc.Status` form without `details`: the
 * expected HTTP status, a JSON body `{ error: { code, status, message } }` with `code` equal to
 * the HTTP status, and nothing else at the top level. See {@link expectError} for the full form.
 */
export async function expectStatusBody(response: Response, status: number): Promise<StatusBody> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/(a2a\+)?json/);
  const body = JSON.parse(text) as StatusBody;
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(status);
  expect(typeof body.error.status).toBe('string');
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message).not.toBe('');
  return body;
}

/**
 * Reads an error response and checks what every REST error must be: {@link expectStatusBody},
 * and a `details` array (`{ error: { code, status, message, details } }`).
 */
export async function expectError(response: Response, status: number): Promise<StatusBody> {
  const body = await expectStatusBody(response, status);
  expect(Array.isArray(body.error.details), `details in ${JSON.stringify(body)}`).toBe(true);
  return body;
}

/** The A2A `ErrorInfo` detail of an error body, checked for its type and domain. */
export function errorInfoOf(body: StatusBody): {
  reason: string;
  domain: string;
  metadata?: Record<string, string>;
} {
  const info = body.error.details.find(
    (detail) => detail['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo',
  );
  expect(info, JSON.stringify(body)).toBeDefined();
  expect(info?.domain).toBe('a2a-protocol.org');
  return info as unknown as { reason: string; domain: string; metadata?: Record<string, string> };
}

/** Reads an error and checks its status and A2A reason; returns the body. */
export async function expectA2AError(
  response: Response,
  status: number,
  reason: string,
): Promise<StatusBody> {
  const body = await expectError(response, status);
  expect(errorInfoOf(body).reason).toBe(reason);
  return body;
}

/** The fields named by the `BadRequest` detail of an error body. */
export function violatedFields(body: StatusBody): string[] {
  const detail = body.error.details.find(
    (d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest',
  ) as { fieldViolations?: { field: string; description: string }[] } | undefined;
  expect(detail, JSON.stringify(body)).toBeDefined();
  return (detail?.fieldViolations ?? []).map((violation) => violation.field);
}

/** Reads an invalid-parameters error: 400, `INVALID_ARGUMENT`, and the violated fields. */
export async function expectInvalidParams(response: Response): Promise<string[]> {
  const body = await expectError(response, 400);
  expect(body.error.status).toBe('INVALID_ARGUMENT');
  return violatedFields(body);
}

/** Reads a whole SSE body into events. */
export async function readSse(response: Response): Promise<SseEvent[]> {
  const decoder = new SseDecoder();
  const events: SseEvent[] = [];
  if (response.body === null) return events;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    events.push(...decoder.push(chunk));
  }
  events.push(...decoder.end());
  return events;
}

/** Reads SSE events one by one as they arrive, so a test can stop in the middle. */
export async function* sseEvents(response: Response): AsyncGenerator<SseEvent> {
  const decoder = new SseDecoder();
  if (response.body === null) return;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    yield* decoder.push(chunk);
  }
  yield* decoder.end();
}

/** A `StreamResponse` as the tests read it. */
export interface WireStreamResponse {
  task?: WireTask;
  message?: Record<string, unknown>;
  statusUpdate?: { taskId: string; status: { state: string } };
  artifactUpdate?: {
    taskId: string;
    append?: boolean;
    lastChunk?: boolean;
    artifact: { parts: { text?: string }[] };
  };
}

/** The data of an event as a bare `StreamResponse` (checked: no JSON-RPC envelope). */
export function payloadOf(event: SseEvent): WireStreamResponse {
  const value = JSON.parse(event.data) as Record<string, unknown>;
  expect(value).not.toHaveProperty('jsonrpc');
  expect(value).not.toHaveProperty('result');
  const keys = Object.keys(value);
  expect(keys.length, event.data).toBe(1);
  expect(['task', 'message', 'statusUpdate', 'artifactUpdate']).toContain(keys[0]);
  return value;
}

/** `task:STATE`, `status:STATE`, `artifact:<text>[+append]` or `message:<text>`. */
export function describePayload(payload: WireStreamResponse): string {
  if (payload.task !== undefined) return `task:${payload.task.status.state}`;
  if (payload.statusUpdate !== undefined) return `status:${payload.statusUpdate.status.state}`;
  if (payload.artifactUpdate !== undefined) {
    const text = payload.artifactUpdate.artifact.parts.map((p) => p.text ?? '').join('');
    return `artifact:${text}${payload.artifactUpdate.append === true ? '+append' : ''}`;
  }
  return 'message';
}
