/**
 * The smallest JSON-RPC client the end-to-end tests need: one POST per call over `fetch`, and
 * SSE responses decoded with the protocol's own decoder into frames with their `id`. It is not a
 * client library: no retries, no card resolution, no typing beyond what assertions use.
 */

import type {
  ListTasksResponse,
  Message,
  SendMessageResponse,
  StreamResponse,
  Task,
} from '../../../src/index.js';
import { decodeSseStream } from '../../../src/protocol/sse-decoder.js';

export const A2A_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  'a2a-version': '1.0',
};

/** The header a test sets to find its request on the server side (see `E2EServer.request`). */
export const TAG_HEADER = 'x-e2e-tag';

/** A JSON-RPC error object as received. */
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: { '@type': string; [key: string]: unknown }[];
}

/** A parsed JSON-RPC response. */
export interface RpcResponse<T> {
  jsonrpc: '2.0';
  id: string | number | null;
  result?: T;
  error?: RpcErrorObject;
}

/** What a call returns, with the raw body for leak checks. */
export interface RpcOutcome<T> extends RpcResponse<T> {
  readonly status: number;
  readonly headers: Headers;
  readonly raw: string;
}

export interface CallOptions {
  readonly headers?: Readonly<Record<string, string>>;
  readonly tag?: string;
  readonly signal?: AbortSignal;
}

let nextId = 1;

function requestInit(method: string, params: unknown, options: CallOptions): RequestInit {
  const body: Record<string, unknown> = { jsonrpc: '2.0', id: nextId++, method };
  if (params !== undefined) body.params = params;
  const headers: Record<string, string> = { ...A2A_HEADERS, ...options.headers };
  if (options.tag !== undefined) headers[TAG_HEADER] = options.tag;
  const init: RequestInit = { method: 'POST', headers, body: JSON.stringify(body) };
  if (options.signal !== undefined) init.signal = options.signal;
  return init;
}

/** Calls a method and returns the JSON-RPC response, error or result. */
export async function rpc<T = unknown>(
  url: string,
  method: string,
  params?: unknown,
  options: CallOptions = {},
): Promise<RpcOutcome<T>> {
  const response = await fetch(url, requestInit(method, params, options));
  if (response.headers.get('content-type')?.startsWith('text/event-stream') === true) {
    await response.body?.cancel();
    throw new Error(`${method} answered with an event stream where a JSON body was expected`);
  }
  const raw = await response.text();
  return {
    ...(JSON.parse(raw) as RpcResponse<T>),
    status: response.status,
    headers: response.headers,
    raw,
  };
}

/** Calls a method that must succeed; returns its result. */
export async function result<T>(
  url: string,
  method: string,
  params?: unknown,
  options?: CallOptions,
): Promise<T> {
  const outcome = await rpc<T>(url, method, params, options);
  if (outcome.error !== undefined || outcome.result === undefined) {
    throw new Error(`${method} failed: ${outcome.raw}`);
  }
  return outcome.result;
}

/** Calls a method that must fail; returns its error. */
export async function rpcError(
  url: string,
  method: string,
  params?: unknown,
  options?: CallOptions,
): Promise<RpcErrorObject & { raw: string }> {
  const outcome = await rpc(url, method, params, options);
  if (outcome.error === undefined) {
    throw new Error(`${method} was expected to fail but answered ${outcome.raw}`);
  }
  return { ...outcome.error, raw: outcome.raw };
}

/** The field paths of a `google.rpc.BadRequest` detail. */
export function violatedFields(error: RpcErrorObject): string[] {
  return (error.data ?? []).flatMap((detail) =>
    detail['@type'].endsWith('google.rpc.BadRequest')
      ? ((detail.fieldViolations as { field: string }[] | undefined) ?? []).map((v) => v.field)
      : [],
  );
}

/** One SSE frame of a JSON-RPC stream. */
export interface Frame {
  /** The SSE `id:` of the frame, if it had one. */
  readonly id: string | undefined;
  readonly result: StreamResponse | undefined;
  readonly error: RpcErrorObject | undefined;
  /** The `data:` text as received. */
  readonly data: string;
}

/** An open event stream. */
export interface SseStream {
  readonly response: Response;
  /** The next frame, or `undefined` once the stream has ended. */
  next(): Promise<Frame | undefined>;
  /** Every frame until the end of the stream. */
  rest(): Promise<Frame[]>;
  /** Drops the connection, as a client that goes away. */
  close(): void;
}

/**
 * Calls a streaming method; fails unless the server answers with an event stream (use
 * {@link rpc} to check the errors of streaming methods, which are ordinary JSON bodies).
 */
export async function openStream(
  url: string,
  method: 'SendStreamingMessage' | 'SubscribeToTask',
  params: unknown,
  options: CallOptions = {},
): Promise<SseStream> {
  const controller = new AbortController();
  const signal =
    options.signal === undefined
      ? controller.signal
      : AbortSignal.any([options.signal, controller.signal]);
  const response = await fetch(url, requestInit(method, params, { ...options, signal }));
  if (response.headers.get('content-type')?.startsWith('text/event-stream') !== true) {
    throw new Error(`${method} did not open a stream: ${await response.text()}`);
  }
  const events = decodeSseStream(response.body as ReadableStream<Uint8Array>);
  const next = async (): Promise<Frame | undefined> => {
    const step = await events.next();
    if (step.done === true) return undefined;
    const parsed = JSON.parse(step.value.data) as RpcResponse<StreamResponse>;
    return { id: step.value.id, result: parsed.result, error: parsed.error, data: step.value.data };
  };
  return {
    response,
    next,
    async rest() {
      const frames: Frame[] = [];
      for (let frame = await next(); frame !== undefined; frame = await next()) frames.push(frame);
      return frames;
    },
    close() {
      controller.abort();
    },
  };
}

/** A user message with one text part (and a fresh `messageId`). */
export function userText(text: string, fields: Partial<Message> = {}): Message {
  return { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...fields };
}

/** `SendMessage` params for `text`. */
export function send(
  text: string,
  fields: Partial<Message> = {},
  configuration?: Record<string, unknown>,
): { message: Message; configuration?: Record<string, unknown> } {
  const params: { message: Message; configuration?: Record<string, unknown> } = {
    message: userText(text, fields),
  };
  if (configuration !== undefined) params.configuration = configuration;
  return params;
}

/** The A2A operations a test calls on one agent's endpoint. */
export class AgentEndpoint {
  constructor(readonly url: string) {}

  /** `SendMessage` that must answer with a task. */
  async sendTask(params: unknown, options?: CallOptions): Promise<Task> {
    const response = await result<SendMessageResponse>(this.url, 'SendMessage', params, options);
    if (response.task === undefined) {
      throw new Error(`SendMessage answered without a task: ${JSON.stringify(response)}`);
    }
    return response.task;
  }

  send(params: unknown, options?: CallOptions): Promise<SendMessageResponse> {
    return result<SendMessageResponse>(this.url, 'SendMessage', params, options);
  }

  getTask(id: string, historyLength?: number): Promise<Task> {
    return result<Task>(
      this.url,
      'GetTask',
      historyLength === undefined ? { id } : { id, historyLength },
    );
  }

  listTasks(params: Record<string, unknown> = {}): Promise<ListTasksResponse> {
    return result<ListTasksResponse>(this.url, 'ListTasks', params);
  }

  cancelTask(id: string): Promise<Task> {
    return result<Task>(this.url, 'CancelTask', { id });
  }

  stream(params: unknown, options?: CallOptions): Promise<SseStream> {
    return openStream(this.url, 'SendStreamingMessage', params, options);
  }

  subscribe(id: string, options?: CallOptions): Promise<SseStream> {
    return openStream(this.url, 'SubscribeToTask', { id }, options);
  }

  call<T = unknown>(method: string, params?: unknown, options?: CallOptions) {
    return rpc<T>(this.url, method, params, options);
  }

  error(method: string, params?: unknown, options?: CallOptions) {
    return rpcError(this.url, method, params, options);
  }
}

/** The state of a frame that is a status update, else `undefined`. */
export function stateOf(frame: Frame | undefined): string | undefined {
  return frame?.result?.statusUpdate?.status.state;
}

/** A compact description of a frame, for comparing whole sequences. */
export function describeFrame(frame: Frame): string {
  const r = frame.result;
  if (r === undefined) return `${frame.id ?? '-'} error ${frame.error?.code ?? '?'}`;
  if (r.task !== undefined) return `${frame.id ?? '-'} task ${r.task.status.state}`;
  if (r.message !== undefined) return `${frame.id ?? '-'} message`;
  if (r.statusUpdate !== undefined)
    return `${frame.id ?? '-'} status ${r.statusUpdate.status.state}`;
  const parts = r.artifactUpdate?.artifact.parts.map((p) => p.text ?? '?').join('+') ?? '';
  return `${frame.id ?? '-'} artifact ${parts}${r.artifactUpdate?.append === true ? ' (append)' : ''}`;
}
